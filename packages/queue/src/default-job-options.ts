import type { AdvancedOptions, BackoffStrategy, JobsOptions } from 'bullmq';

/** The first retry of a failed settlement job waits this long; each further failure doubles it, up to the cap. */
export const SETTLEMENT_RETRY_FIRST_DELAY_MS = 2_000;
/**
 * However often a settlement job failed, its next try is at most this far away: a deposit is money,
 * and the node or database that failed it may be back any moment. (BullMQ's own exponential backoff
 * has no cap: 9 hours after 15 failures, decades after 30.)
 */
export const SETTLEMENT_RETRY_MAX_DELAY_MS = 2 * 60_000;
const SETTLEMENT_RETRY_BACKOFF = 'settlement-capped-exponential';

const settlementRetryDelay: BackoffStrategy = (attemptsMade) =>
  Math.min(SETTLEMENT_RETRY_FIRST_DELAY_MS * 2 ** Math.max(0, attemptsMade - 1), SETTLEMENT_RETRY_MAX_DELAY_MS);

/**
 * Settlement retries for as long as it takes: a deposit is money, and each retry resumes from
 * what PostgreSQL recorded, so retrying can never pay twice. Only failures count as attempts: a
 * job that has to come back later (payout in flight, deposit busy elsewhere) is moved to
 * `delayed` by the worker instead.
 */
export const settlementJobOptions: JobsOptions = {
  attempts: 1_000,
  backoff: { type: SETTLEMENT_RETRY_BACKOFF, delay: SETTLEMENT_RETRY_FIRST_DELAY_MS },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** The settlement worker's BullMQ settings: BullMQ looks up a custom backoff on the consumer side. */
export const settlementWorkerSettings: AdvancedOptions = { backoffStrategy: settlementRetryDelay };

/**
 * A callback job is one attempt at a time. The schedule of retries (about three days) lives in
 * callback_deliveries.next_attempt_at, so it survives Redis being flushed; between attempts the
 * worker moves the same job (same id, the delivery's) to `delayed`, so a delivery never has two jobs.
 * BullMQ's own retries stay off: a job that fails (worker error) is removed, and the reconciler
 * recreates it from PostgreSQL.
 */
export const callbackJobOptions: JobsOptions = {
  attempts: 1,
  removeOnComplete: true,
  removeOnFail: true,
};
