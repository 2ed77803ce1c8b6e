import {
  callbackAttemptOutcome,
  hostBusyRetryAt,
  isCallbackRefusalStatus,
  pendingDeliveryRecheckAt,
  type CallbackAttemptResult,
  type CallbackRetrySchedules,
} from '../src/callback-attempt-policy';
import { DEFAULT_CALLBACK_REFUSAL_SCHEDULE, DEFAULT_CALLBACK_RETRY_SCHEDULE } from '../src/callback-retry-schedule';

const NOW = Date.UTC(2026, 0, 1, 12);
const middle = () => 0.5;
// Two schedules told apart by their delays: failures 1, 2, 4 s; refusals 10, 20 ms.
const schedules: CallbackRetrySchedules = {
  failure: { firstDelayMs: 1_000, maxDelayMs: 8_000, maxRetries: 3, jitter: 0.2 },
  refusal: { firstDelayMs: 10, maxDelayMs: 1_000, maxRetries: 2, jitter: 0.2 },
};
const firstAttempt = { failedInRound: 0, refusalsInRow: 0 };
const retryIn = (ms: number, refusalsInRow: number) => ({ kind: 'retry', nextAttemptAt: new Date(NOW + ms), refusalsInRow });

/** The HTTP client's result for an answer read whole with this status. */
const answered = (statusCode: number): CallbackAttemptResult =>
  statusCode >= 200 && statusCode < 300
    ? { ok: true, statusCode }
    : { ok: false, statusCode, error: { code: 'http_error', retryable: true } };

describe('isCallbackRefusalStatus', () => {
  it.each([
    [399, false],
    [400, true],
    [401, true],
    [403, true],
    [404, true],
    [407, true],
    [408, false],
    [409, true],
    [410, true],
    [424, true],
    [425, false],
    [426, true],
    [428, true],
    [429, false],
    [430, true],
    [451, true],
    [499, true],
    [500, false],
    [503, false],
    [200, false],
    [302, false],
  ])('%i is a refusal: %s', (statusCode, refusal) => {
    expect(isCallbackRefusalStatus(statusCode)).toBe(refusal);
  });
});

describe('callbackAttemptOutcome', () => {
  it('counts a 2xx as delivered, whatever the history', () => {
    for (const round of [firstAttempt, { failedInRound: 2, refusalsInRow: 2 }, { failedInRound: 50, refusalsInRow: 0 }]) {
      expect(callbackAttemptOutcome(answered(200), round, schedules, NOW, middle)).toEqual({ kind: 'delivered' });
    }
  });

  it('fails at once an attempt no retry can change, even on the first attempt', () => {
    const unsendable = { ok: false, error: { code: 'ssrf_refused', retryable: false } };
    expect(callbackAttemptOutcome(unsendable, firstAttempt, schedules, NOW, middle)).toEqual({ kind: 'failed' });
  });

  it.each([400, 401, 403, 404, 409, 410, 422, 499])('retries a %i briefly, on the short schedule', (statusCode) => {
    expect(callbackAttemptOutcome(answered(statusCode), firstAttempt, schedules, NOW, middle)).toEqual(retryIn(10, 1));
  });

  it.each([408, 425, 429, 500, 502, 503, 504, 399, 302])(
    'retries a %i on the long schedule, as a merchant saying "not now"',
    (statusCode) => {
      expect(callbackAttemptOutcome(answered(statusCode), firstAttempt, schedules, NOW, middle)).toEqual(retryIn(1_000, 0));
    },
  );

  it('retries timeouts, connection and DNS errors on the long schedule, also when a refusing status came before the body timed out', () => {
    const failures: CallbackAttemptResult[] = [
      { ok: false, error: { code: 'timeout', retryable: true } },
      { ok: false, statusCode: 400, error: { code: 'timeout', retryable: true } },
      { ok: false, error: { code: 'connect_failed', retryable: true } },
      { ok: false, error: { code: 'dns_failed', retryable: true } },
      { ok: false, error: { retryable: true } },
      { ok: false },
    ];
    for (const failure of failures) {
      expect([failure, callbackAttemptOutcome(failure, firstAttempt, schedules, NOW, middle)]).toEqual([failure, retryIn(1_000, 0)]);
    }
  });

  it('counts the refusals in a row: the next refusal waits longer, and the one past the short schedule ends the delivery refused', () => {
    expect(callbackAttemptOutcome(answered(400), { failedInRound: 1, refusalsInRow: 1 }, schedules, NOW, middle)).toEqual(retryIn(20, 2));
    expect(callbackAttemptOutcome(answered(400), { failedInRound: 2, refusalsInRow: 2 }, schedules, NOW, middle)).toEqual({
      kind: 'refused',
      refusalsInRow: 3,
    });
    expect(callbackAttemptOutcome(answered(404), { failedInRound: 4, refusalsInRow: 4 }, schedules, NOW, middle)).toEqual({
      kind: 'refused',
      refusalsInRow: 5,
    });
  });

  it('starts the short schedule afresh at a refusal that follows another answer, however long the round already is', () => {
    // A shop down for hours (503s), back with a deploy that refuses for a few minutes, gets the short schedule in full.
    expect(callbackAttemptOutcome(answered(404), { failedInRound: 3, refusalsInRow: 0 }, schedules, NOW, middle)).toEqual(retryIn(10, 1));
  });

  it('ends the refusals in a row at any other failure, which the long schedule counts among the failures of the round', () => {
    expect(callbackAttemptOutcome(answered(503), { failedInRound: 2, refusalsInRow: 2 }, schedules, NOW, middle)).toEqual(
      retryIn(4_000, 0),
    );
    expect(callbackAttemptOutcome(answered(429), { failedInRound: 3, refusalsInRow: 1 }, schedules, NOW, middle)).toEqual({
      kind: 'failed',
    });
  });

  it('refuses at once when the short schedule has no retry', () => {
    const noRefusalRetries = { ...schedules, refusal: { ...schedules.refusal, maxRetries: 0 } };
    expect(callbackAttemptOutcome(answered(400), firstAttempt, noRefusalRetries, NOW, middle)).toEqual({
      kind: 'refused',
      refusalsInRow: 1,
    });
  });

  it('spreads the retry by the jitter the random source gives', () => {
    const timeout = { ok: false, error: { code: 'timeout', retryable: true } };
    expect(callbackAttemptOutcome(timeout, firstAttempt, schedules, NOW, () => 0)).toEqual(retryIn(800, 0));
    expect(callbackAttemptOutcome(answered(400), firstAttempt, schedules, NOW, () => 0)).toEqual(retryIn(8, 1));
  });

  it('fails the delivery once the round has used every retry of the long schedule', () => {
    const timeout = { ok: false, error: { code: 'timeout', retryable: true } };
    expect(callbackAttemptOutcome(timeout, { failedInRound: 3, refusalsInRow: 0 }, schedules, NOW, middle)).toEqual({ kind: 'failed' });
    const defaults = { failure: DEFAULT_CALLBACK_RETRY_SCHEDULE, refusal: DEFAULT_CALLBACK_REFUSAL_SCHEDULE };
    const spent = { failedInRound: DEFAULT_CALLBACK_RETRY_SCHEDULE.maxRetries, refusalsInRow: 0 };
    expect(callbackAttemptOutcome(timeout, spent, defaults, NOW, middle)).toEqual({ kind: 'failed' });
  });

  it('with the default schedules, refuses a merchant that keeps answering 400 at its fifth attempt, a quarter of an hour after the first', () => {
    const defaults = { failure: DEFAULT_CALLBACK_RETRY_SCHEDULE, refusal: DEFAULT_CALLBACK_REFUSAL_SCHEDULE };
    let at = NOW;
    let round = firstAttempt;
    const kinds: string[] = [];
    for (;;) {
      const outcome = callbackAttemptOutcome(answered(400), round, defaults, at, middle);
      kinds.push(outcome.kind);
      if (outcome.kind !== 'retry') break;
      at = outcome.nextAttemptAt.getTime();
      round = { failedInRound: round.failedInRound + 1, refusalsInRow: outcome.refusalsInRow };
    }
    expect(kinds).toEqual(['retry', 'retry', 'retry', 'retry', 'refused']);
    expect(at - NOW).toBe(15 * 60_000);
  });
});

describe('hostBusyRetryAt', () => {
  it('comes back between half a second and a second and a half later', () => {
    expect(hostBusyRetryAt(NOW, () => 0)).toEqual(new Date(NOW + 500));
    expect(hostBusyRetryAt(NOW, middle)).toEqual(new Date(NOW + 1_000));
    expect(hostBusyRetryAt(NOW, () => 0.999).getTime()).toBeLessThan(NOW + 1_500);
  });
});

describe('pendingDeliveryRecheckAt', () => {
  it('waits for the delivery to be due', () => {
    expect(pendingDeliveryRecheckAt(new Date(NOW + 60_000), NOW)).toEqual(new Date(NOW + 60_000));
  });

  it('never looks again sooner than 250 ms, so a clock difference cannot make a job spin', () => {
    expect(pendingDeliveryRecheckAt(new Date(NOW - 5_000), NOW)).toEqual(new Date(NOW + 250));
    expect(pendingDeliveryRecheckAt(new Date(NOW + 100), NOW)).toEqual(new Date(NOW + 250));
  });
});
