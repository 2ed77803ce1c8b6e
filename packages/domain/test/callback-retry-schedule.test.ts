import {
  callbackRetryDelayMs,
  DEFAULT_CALLBACK_REFUSAL_SCHEDULE,
  DEFAULT_CALLBACK_RETRY_SCHEDULE,
  type CallbackRetrySchedule,
} from '../src/callback-retry-schedule';

const HOUR = 3_600_000;
const middle = () => 0.5;
const lowest = () => 0;
const highest = () => 0.999999;

/** The whole schedule without jitter: how long a delivery is retried before it is failed. */
function retryWindowMs(schedule: CallbackRetrySchedule): number {
  let total = 0;
  for (let failed = 1; ; failed += 1) {
    const delay = callbackRetryDelayMs(failed, { ...schedule, jitter: 0 });
    if (delay === undefined) return total;
    total += delay;
  }
}

describe('callbackRetryDelayMs', () => {
  it('retries the first failure within a minute, whatever the jitter', () => {
    for (const random of [lowest, middle, highest]) {
      const delay = callbackRetryDelayMs(1, DEFAULT_CALLBACK_RETRY_SCHEDULE, random);
      expect(delay).toBeGreaterThan(0);
      expect(delay).toBeLessThan(60_000);
    }
  });

  it('doubles the delay up to the cap', () => {
    const delays = Array.from({ length: 12 }, (_, i) => callbackRetryDelayMs(i + 1, DEFAULT_CALLBACK_RETRY_SCHEDULE, middle));
    expect(delays.slice(0, 4)).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(delays[10]).toBe(8 * HOUR);
    expect(delays[11]).toBe(8 * HOUR);
    for (let i = 1; i < delays.length; i += 1) expect(delays[i]!).toBeGreaterThanOrEqual(delays[i - 1]!);
  });

  it('spreads each delay by the jitter fraction, symmetrically', () => {
    expect(callbackRetryDelayMs(2, DEFAULT_CALLBACK_RETRY_SCHEDULE, lowest)).toBe(48_000);
    expect(callbackRetryDelayMs(2, DEFAULT_CALLBACK_RETRY_SCHEDULE, highest)).toBe(72_000);
    const noJitter = { ...DEFAULT_CALLBACK_RETRY_SCHEDULE, jitter: 0 };
    expect(callbackRetryDelayMs(2, noJitter, lowest)).toBe(60_000);
  });

  it('gives up after the last retry, about three days after the first failure', () => {
    const { maxRetries } = DEFAULT_CALLBACK_RETRY_SCHEDULE;
    expect(callbackRetryDelayMs(maxRetries, DEFAULT_CALLBACK_RETRY_SCHEDULE, middle)).toBe(8 * HOUR);
    expect(callbackRetryDelayMs(maxRetries + 1, DEFAULT_CALLBACK_RETRY_SCHEDULE, middle)).toBeUndefined();
    const window = retryWindowMs(DEFAULT_CALLBACK_RETRY_SCHEDULE);
    expect(window).toBeGreaterThan(70 * HOUR);
    expect(window).toBeLessThan(76 * HOUR);
  });

  it('keeps the whole jittered schedule within 20% of three days', () => {
    for (const random of [lowest, highest]) {
      let total = 0;
      for (let failed = 1; ; failed += 1) {
        const delay = callbackRetryDelayMs(failed, DEFAULT_CALLBACK_RETRY_SCHEDULE, random);
        if (delay === undefined) break;
        total += delay;
      }
      expect(total / (72 * HOUR)).toBeGreaterThan(0.8);
      expect(total / (72 * HOUR)).toBeLessThan(1.22);
    }
  });

  it('retries a refusal four times over a quarter of an hour by default: 1, 2, 4 and 8 minutes', () => {
    const delays = [1, 2, 3, 4, 5].map((n) => callbackRetryDelayMs(n, DEFAULT_CALLBACK_REFUSAL_SCHEDULE, middle));
    expect(delays).toEqual([60_000, 120_000, 240_000, 480_000, undefined]);
    expect(retryWindowMs(DEFAULT_CALLBACK_REFUSAL_SCHEDULE)).toBe(15 * 60_000);
    expect(callbackRetryDelayMs(1, DEFAULT_CALLBACK_REFUSAL_SCHEDULE, lowest)).toBe(48_000);
  });

  it('follows a configured schedule (the tests run it in milliseconds)', () => {
    const fast: CallbackRetrySchedule = { firstDelayMs: 100, maxDelayMs: 300, maxRetries: 3, jitter: 0 };
    expect([1, 2, 3, 4].map((n) => callbackRetryDelayMs(n, fast))).toEqual([100, 200, 300, undefined]);
    expect(retryWindowMs(fast)).toBe(600);
  });

  it('refuses a failure count that is not a positive integer', () => {
    expect(() => callbackRetryDelayMs(0)).toThrow(RangeError);
    expect(() => callbackRetryDelayMs(1.5)).toThrow(new RangeError('failedAttempts must be a positive integer, got 1.5'));
  });
});
