/**
 * When a failed merchant callback is tried again. Delays double from `firstDelayMs` up to
 * `maxDelayMs`; after `maxRetries` retries the delivery is given up (`failed` or `refused`,
 * resendable by an operator). Two schedules have this shape (callback-attempt-policy chooses):
 *
 * - the long one, for a merchant that did not answer or answered "not now" (5xx, 408, 425, 429, a
 *   timeout, a connection error): 18 retries over about three days (≈ 72.5 h), the first within a
 *   minute: 30 s, 1 min, 2 min, 4 min, 8 min, 16 min, 32 min, 64 min, 2.1 h, 4.3 h, then 8 h × 8;
 * - the short one, for a merchant that refused (any other 4xx): it understood the callback and said
 *   no, which three days of retries will not change, but a shop whose deploy went wrong for a few
 *   minutes gets them: 1, 2, 4 and 8 min, then `refused`, about a quarter of an hour after the first refusal.
 *
 * Each delay is spread by ±`jitter` (a fraction) so that callbacks that failed together (a
 * merchant outage) do not all come back in the same second. The spread is symmetric, so the total
 * stays about the same on average.
 */
export interface CallbackRetrySchedule {
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetries: number;
  readonly jitter: number;
}

export const DEFAULT_CALLBACK_RETRY_SCHEDULE: CallbackRetrySchedule = {
  firstDelayMs: 30_000,
  maxDelayMs: 8 * 3_600_000,
  maxRetries: 18,
  jitter: 0.2,
};

export const DEFAULT_CALLBACK_REFUSAL_SCHEDULE: CallbackRetrySchedule = {
  firstDelayMs: 60_000,
  maxDelayMs: 15 * 60_000,
  maxRetries: 4,
  jitter: 0.2,
};

/** A random number in [0, 1), like Math.random (the default); tests pass a fixed one. */
export type RandomSource = () => number;

/**
 * The delay before the next attempt, given how many attempts have failed (1 after the first
 * failure), or undefined when the schedule is exhausted and the delivery is given up.
 */
export function callbackRetryDelayMs(
  failedAttempts: number,
  schedule: CallbackRetrySchedule = DEFAULT_CALLBACK_RETRY_SCHEDULE,
  random: RandomSource = Math.random,
): number | undefined {
  if (!Number.isInteger(failedAttempts) || failedAttempts < 1) {
    throw new RangeError(`failedAttempts must be a positive integer, got ${failedAttempts}`);
  }
  if (failedAttempts > schedule.maxRetries) return undefined;
  const spread = 1 + schedule.jitter * (2 * random() - 1);
  return Math.round(nominalDelayMs(failedAttempts, schedule) * spread);
}

function nominalDelayMs(retry: number, schedule: CallbackRetrySchedule): number {
  // 2 ** 1023 is the last finite power; past the cap the exponent no longer matters anyway.
  return Math.min(schedule.firstDelayMs * 2 ** Math.min(retry - 1, 1023), schedule.maxDelayMs);
}
