import type { JobsOptions } from 'bullmq';

/**
 * Settlement retries for as long as it takes: a deposit is money, and each retry resumes from
 * what PostgreSQL recorded, so retrying can never pay twice.
 */
export const settlementJobOptions: JobsOptions = {
  attempts: 1_000,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

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
