import { callbackRetryDelayMs, type CallbackRetrySchedule, type RandomSource } from './callback-retry-schedule';

/**
 * What an attempt leaves the delivery as: delivered, failed for good, refused for good, or retried at
 * a time. `refusalsInRow` counts the refusals up to this attempt that no other answer interrupted
 * (0 when this one was no refusal): the delivery keeps it, and the next attempt's policy reads it.
 */
export type CallbackAttemptOutcome =
  | { kind: 'delivered' }
  | { kind: 'retry'; nextAttemptAt: Date; refusalsInRow: number }
  | { kind: 'failed' }
  | { kind: 'refused'; refusalsInRow: number };

/** What the policy needs of an attempt's result: whether the merchant took it, what it answered, and whether a retry could change it. */
export interface CallbackAttemptResult {
  ok: boolean;
  /** The merchant's HTTP status, when one came. */
  statusCode?: number;
  /** `code` is the HTTP client's: `http_error` for an answer read whole that is not 2xx. */
  error?: { code?: string; retryable: boolean };
}

/** Where the delivery's current retry round stands when an attempt starts. */
export interface CallbackRound {
  /** Attempts of this round that failed before this one, whatever their answer (0 on a first attempt and after a resend). */
  failedInRound: number;
  /** Refusals in a row just before this attempt (0 after any other answer, and after a resend). */
  refusalsInRow: number;
}

/** The two retry schedules: `failure` (the long one, about three days) and `refusal` (the short one, minutes). */
export interface CallbackRetrySchedules {
  failure: CallbackRetrySchedule;
  refusal: CallbackRetrySchedule;
}

// 4xx that say "not now" rather than "no": 408 Request Timeout, 425 Too Early, 429 Too Many Requests.
const CLIENT_ERRORS_NOT_REFUSALS: ReadonlySet<number> = new Set([408, 425, 429]);

/**
 * True when an HTTP status is a merchant's refusal: a 4xx other than 408, 425 and 429. The
 * merchant understood the callback and said no (a WooCommerce shop answers 400 to a repeated
 * callback of a paid order); a 5xx, a 408, 425 or 429 says "not now" and is retried for days.
 */
export function isCallbackRefusalStatus(statusCode: number): boolean {
  return statusCode >= 400 && statusCode <= 499 && !CLIENT_ERRORS_NOT_REFUSALS.has(statusCode);
}

/** A refusal is an answer read whole: a refusing status line whose body then timed out is a timeout. */
function isRefusal(result: CallbackAttemptResult): boolean {
  return result.error?.code === 'http_error' && result.statusCode !== undefined && isCallbackRefusalStatus(result.statusCode);
}

// A job for a host with every slot taken comes back after about this long (±50%).
const HOST_BUSY_DEFER_MS = 1_000;
// A job that finds its delivery held by another attempt or not due yet waits at least this long,
// so a small clock difference between workers and PostgreSQL cannot make it spin.
const MIN_RECHECK_MS = 250;

/**
 * What follows an attempt, given its result and where its round stands: delivered on a 2xx; failed
 * at once when no retry can change the answer; a refusal is retried on the short schedule, counted
 * by the refusals in a row, then refused; any other failure is retried on the long schedule,
 * counted by the failures of the round, then failed.
 */
export function callbackAttemptOutcome(
  result: CallbackAttemptResult,
  round: CallbackRound,
  schedules: CallbackRetrySchedules,
  now: number,
  random: RandomSource,
): CallbackAttemptOutcome {
  if (result.ok) return { kind: 'delivered' };
  if (result.error?.retryable === false) return { kind: 'failed' };
  if (isRefusal(result)) {
    const refusalsInRow = round.refusalsInRow + 1;
    const delayMs = callbackRetryDelayMs(refusalsInRow, schedules.refusal, random);
    return delayMs === undefined
      ? { kind: 'refused', refusalsInRow }
      : { kind: 'retry', nextAttemptAt: new Date(now + delayMs), refusalsInRow };
  }
  const delayMs = callbackRetryDelayMs(round.failedInRound + 1, schedules.failure, random);
  return delayMs === undefined ? { kind: 'failed' } : { kind: 'retry', nextAttemptAt: new Date(now + delayMs), refusalsInRow: 0 };
}

/** When a job whose merchant has every slot taken comes back: about a second later, spread so they do not return together. */
export function hostBusyRetryAt(now: number, random: RandomSource): Date {
  return new Date(now + HOST_BUSY_DEFER_MS * (0.5 + random()));
}

/** When a job whose delivery is pending but held by another attempt or not due yet looks again. */
export function pendingDeliveryRecheckAt(nextAttemptAt: Date, now: number): Date {
  return new Date(Math.max(nextAttemptAt.getTime(), now + MIN_RECHECK_MS));
}
