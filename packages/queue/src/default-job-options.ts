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
 * A callback job is one attempt. The schedule of retries (about three days) lives in
 * callback_deliveries.next_attempt_at, so it survives Redis being flushed; the worker re-adds a
 * delayed job for the next attempt.
 */
export const callbackJobOptions: JobsOptions = {
  attempts: 1,
  removeOnComplete: true,
  removeOnFail: true,
};
