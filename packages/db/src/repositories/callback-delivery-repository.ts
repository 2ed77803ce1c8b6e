import type { Pool } from 'pg';
import { callbackDeliveryStatusAfter, type CallbackAttemptOutcome, type CallbackDeliveryStatus, type OrderState } from '@gateway/domain';

export type { CallbackDeliveryStatus };

/** A delivery the caller now holds for one attempt, with what the callback is built from. */
export interface ClaimedCallbackDelivery {
  id: string;
  /** Number of this attempt (1 for the first ever); unique per delivery, also across resends. */
  attemptNo: number;
  /** Attempts of the current retry round before this one (0 on the first attempt and after a resend). */
  failedInRound: number;
  /** The merchant's refusals in a row just before this attempt (0 after any other answer, and after a resend). */
  refusalsInRow: number;
  /** When the attempt was due (next_attempt_at before the claim). */
  dueAt: Date;
  /** When the delivery was written: in the transaction that marked its deposit forwarded (the payout confirmed). */
  forwardedAt: Date;
  callbackUrl: string;
  /** The temporary receiving address, lower-case hex as stored. */
  temporaryAddress: string;
  /** The wallet's payout address (the merchant's share went there), lower-case hex as stored. */
  payoutAddress: string;
  /** The operator released the wallet's callback URL (gateway callbacks release): it is never called for this wallet again. */
  callbackReleased: boolean;
  ipnToken: string;
  /** USDC base units. */
  valueCoin: bigint;
  valueForwardedCoin: bigint;
  feeCoin: bigint;
  txidIn: string;
  txidOut: string;
  /**
   * The order as it stood when the deposit was forwarded (USDC base units): the sum of its final
   * deposits, what it should bring and its state. Null on deliveries written before orders had
   * figures (all three); expected and state are null for an order no attempt gave an expectation.
   */
  orderTotalCoin: bigint | null;
  orderExpectedCoin: bigint | null;
  orderState: OrderState | null;
}

export interface CallbackDeliveryState {
  id: string;
  status: CallbackDeliveryStatus;
  nextAttemptAt: Date;
}

export interface CallbackAttemptRecord {
  deliveryId: string;
  attemptNo: number;
  startedAt: Date;
  durationMs: number;
  statusCode?: number;
  errorCode?: string;
  error?: string;
  /** The first 1 KiB of the merchant's answer. */
  responseExcerpt: string;
  outcome: CallbackAttemptOutcome;
}

export interface OverdueCallbackDelivery {
  id: string;
  /** next_attempt_at as PostgreSQL prints it, to the microsecond: the paging key (a Date keeps ms only). */
  position: string;
}

/** A delivery the retries gave up on (failed or refused), with the last answer, for an operator's list. */
export interface GivenUpCallbackDelivery {
  id: string;
  status: 'failed' | 'refused';
  depositId: string | null;
  callbackUrl: string;
  attemptCount: number;
  resendCount: number;
  lastError: string | null;
  createdAt: Date;
  /** The last attempt's start, its status code and the start of its body; null without any attempt. */
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastAnswer: string | null;
}

export type ResendResult =
  | { result: 'resent'; nextAttemptAt: Date }
  | { result: 'not_found' }
  | { result: 'not_failed'; status: CallbackDeliveryStatus };

/**
 * The callback-worker's view of callback_deliveries. PostgreSQL is the source of truth and the
 * only lock: an attempt starts by claiming the row (due, pending) and pushing next_attempt_at out
 * by a lease, so no other worker starts the same attempt while it runs; a worker that dies
 * mid-attempt leaves a row that is simply due again when the lease ends.
 * The batch methods take many rows in one statement: the worker funnels concurrent jobs into them.
 */
export class CallbackDeliveryRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Claims those of `ids` that are pending and due: attempt_count + 1, next_attempt_at = now +
   * lease. Rows another transaction holds are skipped (SKIP LOCKED), never waited for.
   */
  async claimDue(ids: readonly string[], leaseMs: number): Promise<ClaimedCallbackDelivery[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<ClaimedRow>({
      name: 'callback-claim-due',
      // One primary-key probe per id (LATERAL): a plain "id = ANY(...) AND next_attempt_at <= now()"
      // lets the planner walk the whole due index, i.e. the whole backlog, on every claim.
      text: `WITH due AS (
               SELECT c.id, c.next_attempt_at FROM unnest($1::uuid[]) AS wanted(id)
               CROSS JOIN LATERAL (
                 SELECT id, next_attempt_at FROM callback_deliveries
                 WHERE id = wanted.id AND status = 'pending' AND next_attempt_at <= now()
                 FOR UPDATE SKIP LOCKED) c)
             UPDATE callback_deliveries d
             SET attempt_count = d.attempt_count + 1, next_attempt_at = now() + $2 * interval '1 millisecond'
             FROM due, wallets w
             WHERE d.id = due.id AND w.id = d.wallet_id
             RETURNING d.id::text AS "id", d.attempt_count AS "attemptNo",
               d.attempt_count - 1 - d.round_start_attempts AS "failedInRound", due.next_attempt_at AS "dueAt",
               d.refusals_in_row AS "refusalsInRow",
               d.created_at AS "forwardedAt",
               w.callback_url AS "callbackUrl", w.polygon_address AS "temporaryAddress", w.ipn_token AS "ipnToken",
               w.payout_address AS "payoutAddress", w.callback_released_at IS NOT NULL AS "callbackReleased",
               d.value_coin::text AS "valueCoin", d.value_forwarded_coin::text AS "valueForwardedCoin",
               d.fee_coin::text AS "feeCoin", d.txid_in AS "txidIn", d.txid_out AS "txidOut",
               d.order_total_coin::text AS "orderTotalCoin", d.order_expected_coin::text AS "orderExpectedCoin",
               d.order_state AS "orderState"`,
      values: [ids, leaseMs],
    });
    return rows.map((row) => ({
      ...row,
      valueCoin: BigInt(row.valueCoin),
      valueForwardedCoin: BigInt(row.valueForwardedCoin),
      feeCoin: BigInt(row.feeCoin),
      orderTotalCoin: row.orderTotalCoin === null ? null : BigInt(row.orderTotalCoin),
      orderExpectedCoin: row.orderExpectedCoin === null ? null : BigInt(row.orderExpectedCoin),
    }));
  }

  async findStates(ids: readonly string[]): Promise<CallbackDeliveryState[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.pool.query<CallbackDeliveryState>({
      name: 'callback-states',
      text: `SELECT id::text AS "id", status, next_attempt_at AS "nextAttemptAt"
             FROM callback_deliveries WHERE id = ANY($1::uuid[])`,
      values: [ids],
    });
    return rows;
  }

  /**
   * Gives a claimed attempt back unsent (the worker defers it): the attempt number is returned and
   * the row is due again at `nextAttemptAt`. False when the claim was no longer this attempt's.
   */
  async releaseClaim(id: string, attemptNo: number, nextAttemptAt: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'callback-release-claim',
      text: `UPDATE callback_deliveries SET attempt_count = attempt_count - 1, next_attempt_at = $3
             WHERE id = $1 AND attempt_count = $2 AND status = 'pending'`,
      values: [id, attemptNo, nextAttemptAt],
    });
    return rowCount === 1;
  }

  /**
   * Records attempts and moves their deliveries on, in one statement, to the status the outcome
   * gives (callback-delivery-states in @gateway/domain). A 2xx marks the delivery delivered whatever
   * else happened; a failure only schedules (or fails, or refuses) the delivery when it is still the
   * latest attempt, so a straggler that outlived its lease cannot undo newer state. A retry keeps
   * the merchant's refusals in a row, which the next attempt's policy reads.
   */
  async recordAttempts(records: readonly CallbackAttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.pool.query({
      name: 'callback-record-attempts',
      text: `WITH input AS (
               SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[],
                                    $7::text[], $8::text[], $9::text[], $10::timestamptz[], $11::text[], $12::int[])
                 AS i(delivery_id, attempt_no, started_at, duration_ms, status_code, error_code, error,
                      response_excerpt, outcome, retry_at, status, refusals_in_row)),
             attempts AS (
               INSERT INTO callback_attempts
                 (delivery_id, attempt_no, started_at, duration_ms, status_code, error_code, error, response_excerpt)
               SELECT delivery_id, attempt_no, started_at, duration_ms, status_code, error_code, error, response_excerpt
               FROM input
               ON CONFLICT (delivery_id, attempt_no) DO NOTHING)
             UPDATE callback_deliveries d
             SET status = i.status,
                 delivered_at = CASE WHEN i.outcome = 'delivered' THEN now() ELSE d.delivered_at END,
                 next_attempt_at = CASE WHEN i.outcome = 'retry' THEN i.retry_at ELSE d.next_attempt_at END,
                 last_error = CASE WHEN i.outcome = 'delivered' THEN d.last_error ELSE i.error END,
                 refusals_in_row = coalesce(i.refusals_in_row, d.refusals_in_row)
             FROM input i
             WHERE d.id = i.delivery_id AND d.status = 'pending'
               AND (i.outcome = 'delivered' OR d.attempt_count = i.attempt_no)`,
      values: attemptColumns(records),
    });
  }

  /** now − `overdueByMs` on PostgreSQL's clock, as exact text: the upper end of a reconciler window. */
  async overdueCutoff(overdueByMs: number): Promise<string> {
    const { rows } = await this.pool.query<{ cutoff: string }>({
      name: 'callback-overdue-cutoff',
      text: `SELECT (now() - $1 * interval '1 millisecond')::text AS cutoff`,
      values: [overdueByMs],
    });
    return rows[0]!.cutoff;
  }

  /**
   * Pending deliveries due in (`window.since`, `window.until`] (from the start when `since` is
   * absent), oldest first, after `page` (keyset paging, so a large backlog is walked in batches).
   */
  async listOverdue(
    limit: number,
    window: { since?: string; until: string },
    page?: OverdueCallbackDelivery,
  ): Promise<OverdueCallbackDelivery[]> {
    const { rows } = await this.pool.query<OverdueCallbackDelivery>({
      name: 'callback-list-overdue',
      text: `SELECT id::text AS "id", next_attempt_at::text AS "position" FROM callback_deliveries
             WHERE status = 'pending' AND next_attempt_at <= $2::timestamptz
               AND ($3::timestamptz IS NULL OR next_attempt_at > $3::timestamptz)
               AND ($4::timestamptz IS NULL OR (next_attempt_at, id) > ($4::timestamptz, $5::uuid))
             ORDER BY next_attempt_at, id
             LIMIT $1`,
      values: [limit, window.until, window.since ?? null, page?.position ?? null, page?.id ?? null],
    });
    return rows;
  }

  /** How long the longest-waiting due delivery has been due, in seconds (0 when none is). */
  async oldestDueAgeSeconds(): Promise<number> {
    const { rows } = await this.pool.query<{ age: number | null }>({
      name: 'callback-oldest-due',
      text: `SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 AS age
             FROM callback_deliveries WHERE status = 'pending' AND next_attempt_at <= now()`,
    });
    return Math.max(0, rows[0]?.age ?? 0);
  }

  /**
   * The newest deliveries in `statuses` (failed, refused: what waits for an operator), with their
   * last answer: what `gateway callbacks list` shows (the owner's login). The literal status list
   * matches migration 030's partial index whatever `statuses` holds, so the planner can always use it.
   */
  async listGivenUp(statuses: readonly GivenUpCallbackDelivery['status'][], limit: number): Promise<GivenUpCallbackDelivery[]> {
    const { rows } = await this.pool.query<GivenUpCallbackDelivery>({
      name: 'callback-list-given-up',
      text: `SELECT d.id::text AS "id", d.status, d.deposit_id::text AS "depositId", w.callback_url AS "callbackUrl",
                    d.attempt_count AS "attemptCount", d.resend_count AS "resendCount", d.last_error AS "lastError",
                    d.created_at AS "createdAt", a.started_at AS "lastAttemptAt", a.status_code AS "lastStatusCode",
                    a.response_excerpt AS "lastAnswer"
             FROM callback_deliveries d
             JOIN wallets w ON w.id = d.wallet_id
             LEFT JOIN LATERAL (SELECT started_at, status_code, response_excerpt FROM callback_attempts
                                WHERE delivery_id = d.id ORDER BY attempt_no DESC LIMIT 1) a ON true
             WHERE d.status IN ('failed', 'refused') AND d.status = ANY($1::text[])
             ORDER BY d.created_at DESC, d.id
             LIMIT $2`,
      values: [statuses, limit],
    });
    return rows;
  }

  /**
   * An operator's resend: a failed or refused delivery becomes pending and due now, with a new retry
   * round (CALLBACK_DELIVERY_MOVES.resend). Anything else is left alone and reported. The move is the
   * owner's function (migrations 024, 030), so no app needs a grant that could set a delivered
   * callback back to pending.
   */
  async resendFailed(id: string): Promise<ResendResult> {
    const { rows } = await this.pool.query<{ resent: boolean; status: CallbackDeliveryStatus; dueAt: Date }>({
      name: 'callback-resend-failed',
      text: `SELECT resent, delivery_status AS "status", due_at AS "dueAt" FROM resend_failed_callback_delivery($1)`,
      values: [id],
    });
    const [delivery] = rows;
    if (!delivery) return { result: 'not_found' };
    return delivery.resent ? { result: 'resent', nextAttemptAt: delivery.dueAt } : { result: 'not_failed', status: delivery.status };
  }
}

interface ClaimedRow
  extends Omit<ClaimedCallbackDelivery, 'valueCoin' | 'valueForwardedCoin' | 'feeCoin' | 'orderTotalCoin' | 'orderExpectedCoin'> {
  valueCoin: string;
  valueForwardedCoin: string;
  feeCoin: string;
  orderTotalCoin: string | null;
  orderExpectedCoin: string | null;
}

function attemptColumns(records: readonly CallbackAttemptRecord[]): unknown[] {
  return [
    records.map((r) => r.deliveryId),
    records.map((r) => r.attemptNo),
    records.map((r) => r.startedAt),
    records.map((r) => r.durationMs),
    records.map((r) => r.statusCode ?? null),
    // PostgreSQL text cannot hold NUL; a binary answer keeps everything else. An error text may quote
    // the merchant's bytes too: a record that can never be written would have the callback sent
    // again at the end of every lease.
    records.map((r) => r.errorCode?.replaceAll('\u0000', '\uFFFD') ?? null),
    records.map((r) => r.error?.replaceAll('\u0000', '\uFFFD') ?? null),
    records.map((r) => r.responseExcerpt.replaceAll('\u0000', '\uFFFD')),
    records.map((r) => r.outcome.kind),
    records.map((r) => (r.outcome.kind === 'retry' ? r.outcome.nextAttemptAt : null)),
    records.map((r) => callbackDeliveryStatusAfter(r.outcome)),
    records.map((r) => ('refusalsInRow' in r.outcome ? r.outcome.refusalsInRow : null)),
  ];
}
