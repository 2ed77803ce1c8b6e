import { callbackRetryDelayMs, type CallbackRetrySchedule, type RandomSource } from './callback-retry-schedule';

/** What an attempt leaves the delivery as: delivered, failed for good, or retried at a time. */
export type CallbackAttemptOutcome = { kind: 'delivered' } | { kind: 'retry'; nextAttemptAt: Date } | { kind: 'failed' };

/** What the policy needs of an attempt's result: whether the merchant took it, and whether a retry could change it. */
export interface CallbackAttemptResult {
  ok: boolean;
  error?: { retryable: boolean };
}

// A job for a host with every slot taken comes back after about this long (±50%).
const HOST_BUSY_DEFER_MS = 1_000;
// A job that finds its delivery held by another attempt or not due yet waits at least this long,
// so a small clock difference between workers and PostgreSQL cannot make it spin.
const MIN_RECHECK_MS = 250;

/**
 * What follows an attempt, given its result and how many attempts of this retry round failed
 * before it: delivered on a 2xx; failed at once when no retry can change the answer; otherwise
 * the next retry of the schedule, or failed when the schedule is exhausted.
 */
export function callbackAttemptOutcome(
  result: CallbackAttemptResult,
  failedInRound: number,
  schedule: CallbackRetrySchedule,
  now: number,
  random: RandomSource,
): CallbackAttemptOutcome {
  if (result.ok) return { kind: 'delivered' };
  if (result.error?.retryable === false) return { kind: 'failed' };
  const delayMs = callbackRetryDelayMs(failedInRound + 1, schedule, random);
  return delayMs === undefined ? { kind: 'failed' } : { kind: 'retry', nextAttemptAt: new Date(now + delayMs) };
}

/** When a job whose merchant has every slot taken comes back: about a second later, spread so they do not return together. */
export function hostBusyRetryAt(now: number, random: RandomSource): Date {
  return new Date(now + HOST_BUSY_DEFER_MS * (0.5 + random()));
}

/** When a job whose delivery is pending but held by another attempt or not due yet looks again. */
export function pendingDeliveryRecheckAt(nextAttemptAt: Date, now: number): Date {
  return new Date(Math.max(nextAttemptAt.getTime(), now + MIN_RECHECK_MS));
}
