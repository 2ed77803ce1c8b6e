import type { Pool } from 'pg';
import type { NewCallbackDelivery } from './callback-delivery-writer';

/** What an operator may look a wallet up by: the story command tells them apart by their form. */
export type StoryKey =
  | { by: 'ipn_token'; value: string }
  | { by: 'tx_hash'; value: string }
  | { by: 'address'; value: string }
  | { by: 'id'; value: string }
  | { by: 'deposit'; value: string };

export interface StoryWallet {
  id: string;
  temporaryAddress: string;
  payoutAddress: string;
  callbackUrl: string;
  affiliateAddress: string | null;
  affiliateFeeBps: number | null;
  merchantFeeBps: number | null;
  platformFeeBps: number;
  createdAt: Date;
  callbackReleasedAt: Date | null;
}

export interface StoryPayment {
  id: string;
  /** Fiat, a decimal string. */
  amount: string;
  currency: string;
  provider: string;
  status: string;
  createdAt: Date;
  checkoutServedAt: Date | null;
  checkoutAttempts: number;
  checkoutError: string | null;
  providerStatus: string | null;
  providerRawStatus: string | null;
  providerReason: string | null;
  /** The kind of that reason (migration 035), for a declined or failed payment. */
  providerDeclineKind: string | null;
  providerReference: string | null;
  providerTxHash: string | null;
  providerUpdatedAt: Date | null;
}

export interface StoryDeposit {
  id: string;
  txHash: string;
  logIndex: number;
  blockNumber: string;
  fromAddress: string;
  /** USDC base units. */
  amount: bigint;
  status: string;
  seenAt: Date;
  finalAt: Date | null;
  heldAt: Date | null;
  forwardedAt: Date | null;
  attentionReason: string | null;
  attentionDetail: string | null;
  attentionAt: Date | null;
  sweptByDepositId: string | null;
  /** The transfer the operator paid it out with by hand (`gateway deposits paid-by-hand`); null otherwise. */
  handPayout: StoryHandPayout | null;
}

export interface StoryHandPayout {
  txHash: string;
  toAddress: string;
  amount: bigint;
  paid: string;
  recordedAt: Date;
}

export interface StoryPayoutTransaction {
  txHash: string;
  relayerNonce: string;
  reason: string;
  status: string;
  createdAt: Date;
  sentAt: Date | null;
}

export interface StoryPayout {
  id: string;
  depositId: string;
  leg: string;
  toAddress: string;
  amount: bigint;
  status: string;
  txHash: string | null;
  blockNumber: string | null;
  createdAt: Date;
  confirmedAt: Date | null;
  attentionReason: string | null;
  attentionDetail: string | null;
  attentionAt: Date | null;
  cancelledAt: Date | null;
  replacesPayoutId: string | null;
  transactions: StoryPayoutTransaction[];
}

export interface StoryAttempt {
  attemptNo: number;
  startedAt: Date;
  durationMs: number | null;
  statusCode: number | null;
  errorCode: string | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** A delivery as settlement wrote it (its wallet is the story's), and how it has gone since. */
export interface StoryDelivery extends Omit<NewCallbackDelivery, 'walletId'> {
  status: string;
  attemptCount: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
  lastError: string | null;
  resendCount: number;
  resentAt: Date | null;
  attempts: StoryAttempt[];
}

export interface WalletStory {
  wallet: StoryWallet;
  payments: StoryPayment[];
  deposits: StoryDeposit[];
  payouts: StoryPayout[];
  deliveries: StoryDelivery[];
}

// At most this many wallets for one key (a payout address may have many): the newest.
const MAX_WALLETS = 20;

/**
 * Everything the gateway recorded of a wallet, for the operator's `gateway story`: read only, in a
 * few statements per wallet. Reads every table: run it with a login that may (the owner's).
 */
export class WalletStoryRepository {
  constructor(private readonly pool: Pool) {}

  /** The ids of the wallets the key leads to, newest first (at most 20). */
  async findWallets(key: StoryKey): Promise<string[]> {
    const text = {
      ipn_token: 'SELECT id FROM wallets WHERE ipn_token = $1',
      address: 'SELECT id FROM wallets WHERE polygon_address = lower($1) OR lower(payout_address) = lower($1)',
      deposit: 'SELECT wallet_id AS id FROM deposits WHERE id = $1::bigint',
      // A payment id or a callback delivery id: both are uuids.
      id: `SELECT wallet_id AS id FROM payments WHERE id = $1::uuid
           UNION SELECT wallet_id FROM callback_deliveries WHERE id = $1::uuid`,
      // Hashes are kept lower-case. Deposit in, payout out (its final hash, or any transaction that
      // carried it), or the provider's delivery.
      tx_hash: `SELECT wallet_id AS id FROM deposits WHERE tx_hash = lower($1)
                UNION SELECT d.wallet_id FROM payouts p JOIN deposits d ON d.id = p.deposit_id WHERE p.tx_hash = lower($1)
                UNION SELECT d.wallet_id FROM operator_payouts o JOIN deposits d ON d.id = o.deposit_id WHERE o.tx_hash = lower($1)
                UNION SELECT d.wallet_id FROM payout_transactions t JOIN payouts p ON p.id = t.payout_id
                  JOIN deposits d ON d.id = p.deposit_id WHERE t.tx_hash = lower($1)
                UNION SELECT wallet_id FROM payments WHERE provider_tx_hash = lower($1)`,
    }[key.by];
    const { rows } = await this.pool.query<{ id: string }>(
      `SELECT id::text FROM wallets WHERE id IN (${text}) ORDER BY created_at DESC, id DESC LIMIT ${MAX_WALLETS}`,
      [key.value],
    );
    return rows.map((row) => row.id);
  }

  async story(walletId: string): Promise<WalletStory | undefined> {
    const { rows: wallets } = await this.pool.query<StoryWallet>(
      `SELECT id::text, polygon_address AS "temporaryAddress", payout_address AS "payoutAddress", callback_url AS "callbackUrl",
              affiliate_address AS "affiliateAddress", affiliate_fee_bps AS "affiliateFeeBps", merchant_fee_bps AS "merchantFeeBps",
              platform_fee_bps AS "platformFeeBps", created_at AS "createdAt", callback_released_at AS "callbackReleasedAt"
       FROM wallets WHERE id = $1`,
      [walletId],
    );
    const wallet = wallets[0];
    if (!wallet) return undefined;
    const { rows: payments } = await this.pool.query<StoryPayment>(
      `SELECT id::text, amount::text, currency, provider, status, created_at AS "createdAt", checkout_served_at AS "checkoutServedAt",
              checkout_attempts AS "checkoutAttempts", checkout_error AS "checkoutError", provider_status AS "providerStatus",
              provider_raw_status AS "providerRawStatus", provider_reason AS "providerReason",
              provider_decline_kind AS "providerDeclineKind", provider_reference AS "providerReference",
              provider_tx_hash AS "providerTxHash", provider_updated_at AS "providerUpdatedAt"
       FROM payments WHERE wallet_id = $1 ORDER BY created_at, id`,
      [walletId],
    );
    const { rows: deposits } = await this.pool.query<
      Omit<StoryDeposit, 'amount' | 'handPayout'> & {
        amount: string;
        handPayout: (Omit<StoryHandPayout, 'amount' | 'recordedAt'> & { amount: string; recordedAt: string }) | null;
      }
    >(
      `SELECT d.id::text, d.tx_hash AS "txHash", d.log_index AS "logIndex", d.block_number::text AS "blockNumber",
              d.from_address AS "fromAddress", d.amount::text, d.status, d.seen_at AS "seenAt", d.final_at AS "finalAt",
              d.held_at AS "heldAt", d.forwarded_at AS "forwardedAt", d.attention_reason AS "attentionReason",
              d.attention_detail AS "attentionDetail", d.attention_at AS "attentionAt", d.swept_by_deposit_id::text AS "sweptByDepositId",
              CASE WHEN o.deposit_id IS NULL THEN NULL
                   ELSE json_build_object('txHash', o.tx_hash, 'toAddress', o.to_address, 'amount', o.amount::text, 'paid', o.paid,
                                          'recordedAt', o.recorded_at) END AS "handPayout"
       FROM deposits d LEFT JOIN operator_payouts o ON o.deposit_id = d.id WHERE d.wallet_id = $1 ORDER BY d.seen_at, d.id`,
      [walletId],
    );
    const { rows: payouts } = await this.pool.query<
      Omit<StoryPayout, 'amount' | 'transactions'> & { amount: string; transactions: StoryPayoutTransaction[] }
    >(
      `SELECT p.id::text, p.deposit_id::text AS "depositId", p.leg, p.to_address AS "toAddress", p.amount::text, p.status,
              p.tx_hash AS "txHash", p.block_number::text AS "blockNumber", p.created_at AS "createdAt", p.confirmed_at AS "confirmedAt",
              p.attention_reason AS "attentionReason", p.attention_detail AS "attentionDetail", p.attention_at AS "attentionAt",
              p.cancelled_at AS "cancelledAt", p.replaces_payout_id::text AS "replacesPayoutId",
              coalesce((SELECT json_agg(json_build_object('txHash', t.tx_hash, 'relayerNonce', t.relayer_nonce::text, 'reason', t.reason,
                                                          'status', t.status, 'createdAt', t.created_at, 'sentAt', t.sent_at) ORDER BY t.id)
                        FROM payout_transactions t WHERE t.payout_id = p.id), '[]') AS transactions
       FROM payouts p JOIN deposits d ON d.id = p.deposit_id WHERE d.wallet_id = $1 ORDER BY p.created_at, p.id`,
      [walletId],
    );
    const { rows: deliveries } = await this.pool.query<
      Omit<StoryDelivery, 'valueCoin' | 'valueForwardedCoin' | 'feeCoin' | 'attempts'> & {
        valueCoin: string;
        valueForwardedCoin: string;
        feeCoin: string;
        attempts: StoryAttempt[];
      }
    >(
      `SELECT c.id::text, c.deposit_id::text AS "depositId", c.value_coin::text AS "valueCoin",
              c.value_forwarded_coin::text AS "valueForwardedCoin", c.fee_coin::text AS "feeCoin", c.txid_in AS "txidIn",
              c.txid_out AS "txidOut", c.status, c.attempt_count AS "attemptCount", c.next_attempt_at AS "nextAttemptAt",
              c.created_at AS "createdAt", c.delivered_at AS "deliveredAt", c.last_error AS "lastError", c.resend_count AS "resendCount",
              c.resent_at AS "resentAt",
              coalesce((SELECT json_agg(json_build_object('attemptNo', a.attempt_no, 'startedAt', a.started_at, 'durationMs', a.duration_ms,
                                                          'statusCode', a.status_code, 'errorCode', a.error_code, 'error', a.error,
                                                          'responseExcerpt', a.response_excerpt) ORDER BY a.attempt_no, a.id)
                        FROM callback_attempts a WHERE a.delivery_id = c.id), '[]') AS attempts
       FROM callback_deliveries c WHERE c.wallet_id = $1 ORDER BY c.created_at, c.id`,
      [walletId],
    );
    const date = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));
    return {
      wallet,
      payments,
      deposits: deposits.map(({ handPayout, ...deposit }) => ({
        ...deposit,
        amount: BigInt(deposit.amount),
        handPayout: handPayout && { ...handPayout, amount: BigInt(handPayout.amount), recordedAt: new Date(handPayout.recordedAt) },
      })),
      payouts: payouts.map((payout) => ({
        ...payout,
        amount: BigInt(payout.amount),
        transactions: payout.transactions.map((t) => ({ ...t, createdAt: date(t.createdAt)!, sentAt: date(t.sentAt) })),
      })),
      deliveries: deliveries.map((delivery) => ({
        ...delivery,
        valueCoin: BigInt(delivery.valueCoin),
        valueForwardedCoin: BigInt(delivery.valueForwardedCoin),
        feeCoin: BigInt(delivery.feeCoin),
        attempts: delivery.attempts.map((attempt) => ({ ...attempt, startedAt: date(attempt.startedAt)! })),
      })),
    };
  }
}
