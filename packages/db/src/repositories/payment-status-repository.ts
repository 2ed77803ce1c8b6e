import type { Pool } from 'pg';
import type { DepositStatus, NeedsAttentionReason, ProviderPaymentStatus } from '@gateway/domain';
import { attemptJson, latestAttempts, readAttempt, type AttemptJson, type PaymentAttemptRecord } from './wallet-attempts';

/** A wallet as Check Payment Status reports it to the merchant who holds its ipn_token: no customer e-mail. */
export interface PaymentStatusRecord {
  /** The wallet's id, to read its order's facts by (OrderRepository). */
  walletId: string;
  /** Lower-case hex. */
  polygonAddress: string;
  /** Lower-case hex. */
  payoutAddress: string;
  callbackUrl: string;
  /** Sums over the forwarded deposits, token base units. */
  forwarded: { count: number; valueCoin: bigint; valueForwardedCoin: bigint; feeCoin: bigint };
  /** The most recently forwarded deposit's transactions (in and merchant leg out); null when none is forwarded. */
  latestForwarded: { txidIn: string; txidOut: string } | null;
  /** Newest first, at most `limits.deposits`. */
  deposits: PaymentStatusDeposit[];
  /** How many deposits the wallet has in all (the list may be cut). */
  depositCount: number;
  /** Newest first, at most `limits.payments`. */
  payments: PaymentStatusPayment[];
}

export interface PaymentStatusDeposit {
  status: DepositStatus;
  /** Why its payout will not succeed, while it is needs_attention; null otherwise. */
  attentionReason: NeedsAttentionReason | null;
  /** Token base units. */
  amount: bigint;
  txHash: string;
  seenAt: Date;
  forwardedAt: Date | null;
  /** From the callback delivery written with `forwarded`; null before. */
  valueForwardedCoin: bigint | null;
  feeCoin: bigint | null;
  /** The merchant leg's transaction, once forwarded. */
  txidOut: string | null;
  /** The token of its Transfer, lower-case hex; null in rows no app wrote (the counted token, migration 023). */
  token: string | null;
}

/** An attempt of the wallet (attemptThatPaid credits deposits among them) with what the status API reports of it. */
export interface PaymentStatusPayment extends PaymentAttemptRecord {
  amount: string;
  currency: string;
  providerStatus: ProviderPaymentStatus | null;
  providerReference: string | null;
  providerUpdatedAt: Date | null;
}

export interface PaymentStatusLimits {
  deposits: number;
  payments: number;
}

const DEFAULT_LIMITS: PaymentStatusLimits = { deposits: 100, payments: 20 };

interface StatusRow {
  wallet_id: string;
  polygon_address: string;
  payout_address: string;
  callback_url: string;
  forwarded_count: number;
  forwarded_value: string;
  forwarded_merchant: string;
  forwarded_fee: string;
  latest_txid_in: string | null;
  latest_txid_out: string | null;
  deposit_count: number;
  deposits: DepositJson[] | null;
  payments: PaymentJson[] | null;
}

// Every number inside the JSON is cast to text first: a numeric(78,0) as a JSON number would
// pass through a float in JSON.parse.
interface DepositJson {
  status: DepositStatus;
  attention_reason: NeedsAttentionReason | null;
  amount: string;
  tx_hash: string;
  seen_at: string;
  forwarded_at: string | null;
  value_forwarded_coin: string | null;
  fee_coin: string | null;
  txid_out: string | null;
  token: string | null;
}

interface PaymentJson extends AttemptJson {
  amount: string;
  currency: string;
  provider_status: ProviderPaymentStatus | null;
  provider_reference: string | null;
  provider_updated_at: string | null;
}

/**
 * Check Payment Status: one statement, entered by the unique index on wallets.ipn_token; the
 * deposits come through deposits_wallet_idx and the newest payments through payments_wallet_created_idx,
 * read backwards and cut at the limit: the payments a wallet has in all are never counted or read
 * (an order soaked with attempts answers as fast as any, issue 35).
 * The forwarded amounts are the ones written with the deposit's callback delivery (the same
 * transaction that marks it forwarded), so they are what the merchant's callback carries.
 */
export class PaymentStatusRepository {
  constructor(private readonly pool: Pool) {}

  async findByIpnToken(ipnToken: string, limits: PaymentStatusLimits = DEFAULT_LIMITS): Promise<PaymentStatusRecord | undefined> {
    const { rows } = await this.pool.query<StatusRow>({
      name: 'payment-status-by-ipn-token',
      text: `SELECT w.id::text AS wallet_id, w.polygon_address, w.payout_address, w.callback_url,
                    f.forwarded_count, f.forwarded_value, f.forwarded_merchant, f.forwarded_fee, f.deposit_count,
                    latest.txid_in AS latest_txid_in, latest.txid_out AS latest_txid_out,
                    (SELECT json_agg(json_build_object(
                              'status', d.status, 'attention_reason', d.attention_reason, 'amount', d.amount::text, 'tx_hash', d.tx_hash,
                              'seen_at', d.seen_at, 'forwarded_at', d.forwarded_at,
                              'value_forwarded_coin', cd.value_forwarded_coin::text, 'fee_coin', cd.fee_coin::text,
                              'txid_out', cd.txid_out, 'token', d.token)
                            ORDER BY d.seen_at DESC, d.id DESC)
                     FROM (SELECT * FROM deposits WHERE wallet_id = w.id ORDER BY seen_at DESC, id DESC LIMIT $2) d
                     LEFT JOIN callback_deliveries cd ON cd.deposit_id = d.id AND d.status = 'forwarded') AS deposits,
                    (SELECT json_agg(${attemptJson('p')}::jsonb || json_build_object(
                              'amount', p.amount::text, 'currency', p.currency, 'provider_status', p.provider_status,
                              'provider_reference', p.provider_reference, 'provider_updated_at', p.provider_updated_at)::jsonb
                            ORDER BY p.created_at DESC, p.id DESC)
                     FROM ${latestAttempts('w.id', '$3', undefined, '*')} p) AS payments
             FROM wallets w
             CROSS JOIN LATERAL (
               SELECT count(*)::int AS deposit_count,
                      count(*) FILTER (WHERE d.status = 'forwarded')::int AS forwarded_count,
                      -- What the callbacks reported: a payout that swept held dust reports the deposit plus the dust.
                      coalesce(sum(cd.value_coin) FILTER (WHERE d.status = 'forwarded'), 0)::text AS forwarded_value,
                      coalesce(sum(cd.value_forwarded_coin) FILTER (WHERE d.status = 'forwarded'), 0)::text AS forwarded_merchant,
                      coalesce(sum(cd.fee_coin) FILTER (WHERE d.status = 'forwarded'), 0)::text AS forwarded_fee
               FROM deposits d LEFT JOIN callback_deliveries cd ON cd.deposit_id = d.id
               WHERE d.wallet_id = w.id) f
             LEFT JOIN LATERAL (
               SELECT cd.txid_in, cd.txid_out
               FROM deposits d JOIN callback_deliveries cd ON cd.deposit_id = d.id
               WHERE d.wallet_id = w.id AND d.status = 'forwarded'
               ORDER BY d.forwarded_at DESC NULLS LAST, d.id DESC LIMIT 1) latest ON true
             WHERE w.ipn_token = $1`,
      values: [ipnToken, limits.deposits, limits.payments],
    });
    const row = rows[0];
    if (!row) return undefined;
    return {
      walletId: row.wallet_id,
      polygonAddress: row.polygon_address,
      payoutAddress: row.payout_address,
      callbackUrl: row.callback_url,
      forwarded: {
        count: row.forwarded_count,
        valueCoin: BigInt(row.forwarded_value),
        valueForwardedCoin: BigInt(row.forwarded_merchant),
        feeCoin: BigInt(row.forwarded_fee),
      },
      latestForwarded:
        row.latest_txid_in === null || row.latest_txid_out === null ? null : { txidIn: row.latest_txid_in, txidOut: row.latest_txid_out },
      depositCount: row.deposit_count,
      deposits: (row.deposits ?? []).map((d) => ({
        status: d.status,
        attentionReason: d.attention_reason,
        amount: BigInt(d.amount),
        txHash: d.tx_hash,
        seenAt: new Date(d.seen_at),
        forwardedAt: d.forwarded_at === null ? null : new Date(d.forwarded_at),
        valueForwardedCoin: d.value_forwarded_coin === null ? null : BigInt(d.value_forwarded_coin),
        feeCoin: d.fee_coin === null ? null : BigInt(d.fee_coin),
        txidOut: d.txid_out,
        token: d.token,
      })),
      payments: (row.payments ?? []).map((p) => ({
        ...readAttempt(p),
        amount: p.amount,
        currency: p.currency.trim(),
        providerStatus: p.provider_status,
        providerReference: p.provider_reference,
        providerUpdatedAt: p.provider_updated_at === null ? null : new Date(p.provider_updated_at),
      })),
    };
  }
}
