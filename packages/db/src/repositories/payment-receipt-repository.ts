import type { Pool } from 'pg';
import { paymentKeyHashes, RECOVERY_LINK_KEY_HASH } from './recovery-email-repository';
import type { DeclineKind, DepositStatus, ProviderPaymentStatus } from '@gateway/domain';
import { readOrderFacts, type RecordedOrderFacts } from './order-facts';
import {
  attemptColumns,
  attemptJson,
  attemptsReporting,
  latestAttempts,
  readAttempts,
  type AttemptJson,
  type PaymentAttemptRecord,
} from './wallet-attempts';

/** A payment by name: its provider and what it charges. */
export interface PaymentSummaryRecord {
  id: string;
  amount: string;
  currency: string;
  provider: string;
}

/** A payment as its receipt page shows it: no e-mail, payout address or ipn_token. */
export interface PaymentReceiptRecord extends PaymentSummaryRecord {
  /** Its wallet: the order it is an attempt of. */
  walletId: string;
  createdAt: Date;
  providerStatus: ProviderPaymentStatus | null;
  providerReason: string | null;
  /** The kind of that reason, for a declined or failed payment (migration 035): the second chance orders its choices by it. */
  providerDeclineKind: DeclineKind | null;
  /**
   * SHA-256 of the keys that act on it: its own (none for a payment recorded before keys existed,
   * migration 027) and its recovery e-mail's link (migration 036) while that is good.
   */
  keyHash: Buffer[];
  /** Second chances taken from it (and rests: paying an underpaid order's rest takes one too). */
  secondChances: number;
  /** For a rest payment, the attempt whose order it completes (migration 033); null for any other. */
  completes: string | null;
  deposits: ReceiptDepositRecord[];
  /**
   * The payments of the same wallet that attemptThatPaid needs to credit its deposits, oldest
   * first: this one; for each deposit, the attempts whose provider reported its transaction and the
   * latest created since this one before it was seen that reported none; and the wallet's latest
   * two since this one (the attempt the customer chose next). A few index look-ups, however many
   * attempts the wallet has.
   */
  attempts: PaymentAttemptRecord[];
}

export interface ReceiptDepositRecord {
  status: DepositStatus;
  /** Token base units. */
  amount: bigint;
  txHash: string;
  seenAt: Date;
  /** The merchant leg's transaction, once forwarded. */
  forwardedTxHash: string | null;
  /** The merchant's callback answered 2xx. */
  merchantNotified: boolean;
  /** The token of its Transfer, lower-case hex; null in rows no app wrote (the counted token, migration 023). */
  token: string | null;
}

/** The order a receipt judges: its facts (order-facts.ts), and the order as its customer gave it. */
export interface ReceiptOrderRecord extends RecordedOrderFacts {
  /** Absent when no attempt recorded an expectation. */
  order?: {
    /** The attempt the order was asked with: the one that recorded the expectation, or the one a rest payment completes. */
    paymentId: string;
    /** Its amount and currency, as the customer was asked. */
    amount: string;
    currency: string;
    /** The rate the expectation was priced at (units of the currency per 1 USD, formatRate's text), its source and time. */
    usdRate: string | null;
    usdRateSource: string | null;
    usdRateAsOf: Date | null;
  };
}

/** The customer's receipt, read: what happened to a payment, its deposits and the attempts of its order. */
export class PaymentReceiptRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * The payment, the deposits into its wallet since it started (a wallet is one order; earlier
   * deposits belong to an earlier payment of it), oldest first, and the wallet's payments that may
   * be credited with them (PaymentReceiptRecord.attempts), in one round trip.
   */
  async findReceipt(paymentId: string): Promise<PaymentReceiptRecord | undefined> {
    const { rows } = await this.pool.query<ReceiptRow>({
      name: 'payment-receipt',
      text: `SELECT p.id, p.wallet_id, p.amount::text AS amount, p.currency, p.provider, p.created_at, p.provider_status, p.provider_reason,
                    p.provider_decline_kind,
                    d.status AS deposit_status, d.amount::text AS deposit_amount, d.tx_hash, d.seen_at, d.token,
                    po.tx_hash AS forwarded_tx_hash, cd.status = 'delivered' AS merchant_notified,
                    p.customer_key_hash, ${RECOVERY_LINK_KEY_HASH('p')}, p.second_chances, p.completes,
                    (SELECT json_agg(${attemptJson('a')} ORDER BY a.created_at, a.id)
                     FROM (SELECT DISTINCT ON (c.id) c.* FROM (
                             SELECT ${attemptColumns('p')}
                             UNION ALL
                             SELECT l.* FROM ${latestAttempts('p.wallet_id', 2, 'created_at >= p.created_at')} l
                             UNION ALL
                             SELECT r.* FROM deposits rd CROSS JOIN LATERAL ${attemptsReporting('rd')} r
                             WHERE rd.wallet_id = p.wallet_id AND rd.seen_at >= p.created_at
                             UNION ALL
                             -- Every attempt at the latest moment before the deposit: a batch records several at one now().
                             SELECT ${attemptColumns('t')}
                             FROM deposits td JOIN payments t ON t.wallet_id = td.wallet_id AND t.provider_tx_hash IS NULL
                               AND t.created_at = (SELECT max(m.created_at) FROM payments m
                                                   WHERE m.wallet_id = td.wallet_id AND m.provider_tx_hash IS NULL
                                                     AND m.created_at >= p.created_at AND m.created_at <= td.seen_at)
                             WHERE td.wallet_id = p.wallet_id AND td.seen_at >= p.created_at
                           ) c) a) AS attempts
             FROM payments p
             LEFT JOIN deposits d ON d.wallet_id = p.wallet_id AND d.seen_at >= p.created_at
             LEFT JOIN payouts po ON po.deposit_id = d.id AND po.leg = 'merchant'
             LEFT JOIN callback_deliveries cd ON cd.deposit_id = d.id
             WHERE p.id = $1
             ORDER BY d.seen_at, d.id`,
      values: [paymentId],
    });
    const first = rows[0];
    if (!first) return undefined;
    return {
      ...summaryOf(first),
      walletId: first.wallet_id,
      createdAt: first.created_at,
      providerStatus: first.provider_status,
      providerReason: first.provider_reason,
      providerDeclineKind: first.provider_decline_kind,
      keyHash: paymentKeyHashes(first.customer_key_hash, first.link_key_hash),
      secondChances: first.second_chances,
      completes: first.completes,
      deposits: rows
        .filter((row) => row.deposit_status !== null)
        .map((row) => ({
          status: row.deposit_status as DepositStatus,
          amount: BigInt(row.deposit_amount ?? '0'),
          txHash: row.tx_hash ?? '',
          seenAt: row.seen_at ?? first.created_at,
          forwardedTxHash: row.forwarded_tx_hash,
          merchantNotified: row.merchant_notified === true,
          token: row.token,
        })),
      attempts: readAttempts(first.attempts),
    };
  }

  /**
   * The wallet's order as its receipts judge it: the facts every reader judges it from, and the order
   * its expectation is of (a rest payment completes another attempt's order: that attempt's amount).
   */
  async findOrder(walletId: string): Promise<ReceiptOrderRecord | undefined> {
    const facts = await readOrderFacts(this.pool, walletId);
    if (!facts?.attempt) return facts;
    const { rows } = await this.pool.query<OrderRow>({
      name: 'payment-receipt-order',
      text: `SELECT o.id, o.amount::text AS amount, o.currency, a.usd_rate, a.usd_rate_source, a.usd_rate_as_of
             FROM payments a JOIN payments o ON o.id = COALESCE(a.completes, a.id) WHERE a.id = $1`,
      values: [facts.attempt.paymentId],
    });
    const order = rows[0];
    if (!order) throw new Error(`payment ${facts.attempt.paymentId} read without its order`);
    return {
      ...facts,
      order: {
        paymentId: order.id,
        amount: order.amount,
        currency: order.currency.trim(),
        usdRate: order.usd_rate,
        usdRateSource: order.usd_rate_source,
        usdRateAsOf: order.usd_rate_as_of,
      },
    };
  }

  /** What the page that goes on to a payment's checkout names: its provider and amount, nothing else. */
  async findSummary(paymentId: string): Promise<PaymentSummaryRecord | undefined> {
    const { rows } = await this.pool.query<PaymentSummaryRecord>({
      name: 'payment-summary',
      text: 'SELECT id, amount::text AS amount, currency, provider FROM payments WHERE id = $1',
      values: [paymentId],
    });
    return rows[0] && summaryOf(rows[0]);
  }
}

function summaryOf(row: PaymentSummaryRecord): PaymentSummaryRecord {
  // currency is char(3) in the table: its padding is not the code's.
  return { id: row.id, amount: row.amount, currency: row.currency.trim(), provider: row.provider };
}

interface OrderRow {
  id: string;
  amount: string;
  currency: string;
  usd_rate: string | null;
  usd_rate_source: string | null;
  usd_rate_as_of: Date | null;
}

interface ReceiptRow {
  id: string;
  wallet_id: string;
  amount: string;
  currency: string;
  provider: string;
  created_at: Date;
  provider_status: ProviderPaymentStatus | null;
  provider_reason: string | null;
  provider_decline_kind: DeclineKind | null;
  customer_key_hash: Buffer | null;
  link_key_hash: Buffer | null;
  second_chances: number;
  completes: string | null;
  deposit_status: string | null;
  deposit_amount: string | null;
  tx_hash: string | null;
  seen_at: Date | null;
  token: string | null;
  forwarded_tx_hash: string | null;
  merchant_notified: boolean | null;
  attempts: AttemptJson[] | null;
}
