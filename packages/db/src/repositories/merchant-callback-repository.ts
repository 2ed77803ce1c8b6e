import type { Pool } from 'pg';
import type { CallbackDeliveryStatus } from './callback-delivery-repository';

/** One attempt of a callback as its merchant may see it: no error text (the worker's words), the error code only. */
export interface MerchantCallbackAttempt {
  attemptNo: number;
  startedAt: Date;
  durationMs: number;
  /** The merchant's HTTP status; null when it never answered (then errorCode says why). */
  statusCode: number | null;
  /** Why the attempt did not deliver (http_error for a non-2xx answer); null for a delivered one. */
  errorCode: string | null;
  /** The start of the answer recorded (itself the first 1 KiB), `limits.excerptChars` characters at most; null when none was recorded. */
  responseExcerpt: string | null;
  /** The recorded answer goes on past the excerpt given. */
  responseExcerptCut: boolean;
}

/** One callback delivery of a wallet (one per forwarded deposit), with its newest attempts. */
export interface MerchantCallbackDelivery {
  /** Also the x-gateway-delivery-id header of every attempt. */
  id: string;
  status: CallbackDeliveryStatus;
  /** The deposit it reports. */
  txidIn: string;
  /** When it was written (with the deposit's forwarding). */
  createdAt: Date;
  /** When it was last delivered; null until a 2xx. */
  deliveredAt: Date | null;
  /** While pending, when its next attempt is due (the end of the lease of an attempt in flight). */
  nextAttemptAt: Date;
  /** Attempts made in all (the list may be cut). */
  attemptCount: number;
  resendCount: number;
  resentAt: Date | null;
  /** Newest first, at most `limits.attempts`. */
  attempts: MerchantCallbackAttempt[];
}

export interface MerchantCallbackLog {
  /** How many deliveries the wallet has in all (the list may be cut). */
  deliveryCount: number;
  /** Newest first, at most `limits.deliveries`. */
  deliveries: MerchantCallbackDelivery[];
}

export interface MerchantCallbackLimits {
  deliveries: number;
  attempts: number;
  /** Characters of each recorded answer. */
  excerptChars: number;
}

/** A wallet, and whether it has a callback to send again. */
export interface ResendableWallet {
  walletId: string;
  /** Its latest delivery; null while it has none (nothing forwarded yet). */
  latestDeliveryId: string | null;
}

export type MerchantResendResult =
  | { resent: true; deliveryId: string; nextAttemptAt: Date }
  /** The latest delivery is pending: on its way already, left as it is. */
  | { resent: false; deliveryId: string; status: CallbackDeliveryStatus; nextAttemptAt: Date };

interface LogRow {
  delivery_count: number;
  deliveries: DeliveryJson[] | null;
}

interface DeliveryJson {
  id: string;
  status: CallbackDeliveryStatus;
  txid_in: string;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string;
  attempt_count: number;
  resend_count: number;
  resent_at: string | null;
  attempts: AttemptJson[] | null;
}

interface AttemptJson {
  attempt_no: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error_code: string | null;
  response_excerpt: string | null;
  response_excerpt_cut: boolean | null;
}

/**
 * The callbacks of a wallet as the merchant holding its ipn_token sees them (Check Payment Status)
 * and asks for the latest again (resend-callback.php). Entered by the unique index on
 * wallets.ipn_token; a wallet's deliveries come newest first through
 * callback_deliveries_wallet_created_idx and each one's attempts through the (delivery_id,
 * attempt_no) key, read backwards and cut at the limits, so an order with many deposits or a
 * callback retried for days reads no more than a new one.
 */
export class MerchantCallbackRepository {
  constructor(private readonly pool: Pool) {}

  /** undefined: no wallet has this ipn_token. */
  async findLog(ipnToken: string, limits: MerchantCallbackLimits): Promise<MerchantCallbackLog | undefined> {
    const { rows } = await this.pool.query<LogRow>({
      name: 'merchant-callback-log',
      // Only the attempts' columns wallet-control may read (app-privileges.sql): never `*`.
      text: `SELECT (SELECT count(*)::int FROM callback_deliveries WHERE wallet_id = w.id) AS delivery_count,
                    (SELECT json_agg(json_build_object(
                              'id', c.id, 'status', c.status, 'txid_in', c.txid_in, 'created_at', c.created_at,
                              'delivered_at', c.delivered_at, 'next_attempt_at', c.next_attempt_at,
                              'attempt_count', c.attempt_count, 'resend_count', c.resend_count, 'resent_at', c.resent_at,
                              'attempts',
                              (SELECT json_agg(json_build_object(
                                        'attempt_no', a.attempt_no, 'started_at', a.started_at, 'duration_ms', a.duration_ms,
                                        'status_code', a.status_code, 'error_code', a.error_code,
                                        'response_excerpt', left(a.response_excerpt, $4),
                                        'response_excerpt_cut', length(a.response_excerpt) > $4)
                                      ORDER BY a.attempt_no DESC)
                               FROM (SELECT attempt_no, started_at, duration_ms, status_code, error_code, response_excerpt
                                     FROM callback_attempts WHERE delivery_id = c.id
                                     ORDER BY attempt_no DESC LIMIT $3) a))
                            ORDER BY c.created_at DESC, c.id DESC)
                     FROM (SELECT id, status, txid_in, created_at, delivered_at, next_attempt_at, attempt_count, resend_count, resent_at
                           FROM callback_deliveries WHERE wallet_id = w.id
                           ORDER BY created_at DESC, id DESC LIMIT $2) c) AS deliveries
             FROM wallets w WHERE w.ipn_token = $1`,
      values: [ipnToken, limits.deliveries, limits.attempts, limits.excerptChars],
    });
    const row = rows[0];
    if (!row) return undefined;
    return {
      deliveryCount: row.delivery_count,
      deliveries: (row.deliveries ?? []).map((d) => ({
        id: d.id,
        status: d.status,
        txidIn: d.txid_in,
        createdAt: new Date(d.created_at),
        deliveredAt: d.delivered_at === null ? null : new Date(d.delivered_at),
        nextAttemptAt: new Date(d.next_attempt_at),
        attemptCount: d.attempt_count,
        resendCount: d.resend_count,
        resentAt: d.resent_at === null ? null : new Date(d.resent_at),
        attempts: (d.attempts ?? []).map((a) => ({
          attemptNo: a.attempt_no,
          startedAt: new Date(a.started_at),
          durationMs: a.duration_ms,
          statusCode: a.status_code,
          errorCode: a.error_code,
          responseExcerpt: a.response_excerpt,
          responseExcerptCut: a.response_excerpt_cut === true,
        })),
      })),
    };
  }

  /** undefined: no wallet has this ipn_token. */
  async findResendable(ipnToken: string): Promise<ResendableWallet | undefined> {
    const { rows } = await this.pool.query<ResendableWallet>({
      name: 'merchant-callback-resendable',
      text: `SELECT w.id::text AS "walletId",
                    (SELECT id::text FROM callback_deliveries WHERE wallet_id = w.id
                     ORDER BY created_at DESC, id DESC LIMIT 1) AS "latestDeliveryId"
             FROM wallets w WHERE w.ipn_token = $1`,
      values: [ipnToken],
    });
    return rows[0];
  }

  /**
   * The merchant's resend: the wallet's latest delivery, unless pending, becomes pending and due
   * now with a new retry round, the same row (so the same delivery id and signed URL), the resend
   * counted. The owner's function (migration 032) makes that move and no other: wallet-control has
   * no UPDATE on callback_deliveries. undefined: the wallet has no delivery.
   */
  async resendLatest(walletId: string): Promise<MerchantResendResult | undefined> {
    const { rows } = await this.pool.query<{ resent: boolean; deliveryId: string; status: CallbackDeliveryStatus; dueAt: Date }>({
      name: 'merchant-callback-resend-latest',
      text: `SELECT resent, delivery_id::text AS "deliveryId", delivery_status AS "status", due_at AS "dueAt"
             FROM resend_latest_callback_delivery($1)`,
      values: [walletId],
    });
    const [delivery] = rows;
    if (!delivery) return undefined;
    return delivery.resent
      ? { resent: true, deliveryId: delivery.deliveryId, nextAttemptAt: delivery.dueAt }
      : { resent: false, deliveryId: delivery.deliveryId, status: delivery.status, nextAttemptAt: delivery.dueAt };
  }
}
