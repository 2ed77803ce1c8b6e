import { callbackAttemptOutcome, hostBusyRetryAt, pendingDeliveryRecheckAt } from '../src/callback-attempt-policy';
import { DEFAULT_CALLBACK_RETRY_SCHEDULE, type CallbackRetrySchedule } from '../src/callback-retry-schedule';

const NOW = Date.UTC(2026, 0, 1, 12);
const middle = () => 0.5;
const schedule: CallbackRetrySchedule = { firstDelayMs: 1_000, maxDelayMs: 8_000, maxRetries: 3, jitter: 0.2 };

describe('callbackAttemptOutcome', () => {
  it('counts a 2xx as delivered, whatever the history', () => {
    for (const failedInRound of [0, 2, 3, 50]) {
      expect(callbackAttemptOutcome({ ok: true }, failedInRound, schedule, NOW, middle)).toEqual({ kind: 'delivered' });
    }
  });

  it('fails at once an attempt no retry can change, even on the first attempt', () => {
    const refused = { ok: false, error: { retryable: false } };
    expect(callbackAttemptOutcome(refused, 0, schedule, NOW, middle)).toEqual({ kind: 'failed' });
  });

  it('retries a retryable failure at the schedule delay for the failures of this round', () => {
    const timeout = { ok: false, error: { retryable: true } };
    expect(callbackAttemptOutcome(timeout, 0, schedule, NOW, middle)).toEqual({ kind: 'retry', nextAttemptAt: new Date(NOW + 1_000) });
    expect(callbackAttemptOutcome(timeout, 2, schedule, NOW, middle)).toEqual({ kind: 'retry', nextAttemptAt: new Date(NOW + 4_000) });
  });

  it('retries a failure without an error (a non-2xx answer) like a retryable one', () => {
    expect(callbackAttemptOutcome({ ok: false }, 1, schedule, NOW, middle)).toEqual({
      kind: 'retry',
      nextAttemptAt: new Date(NOW + 2_000),
    });
  });

  it('never counts a 4xx as delivered: the answers the HTTP client gives for 400, 404, 410 and 429 are retried', () => {
    // A 4xx is usually a merchant deploy gone wrong; counted as delivered, the shop would never hear of the payment.
    for (const statusCode of [400, 404, 410, 429]) {
      const answered = { ok: false, statusCode, error: { code: 'http_error', retryable: true } };
      expect([statusCode, callbackAttemptOutcome(answered, 0, schedule, NOW, middle)]).toEqual([
        statusCode,
        { kind: 'retry', nextAttemptAt: new Date(NOW + 1_000) },
      ]);
    }
  });

  it('spreads the retry by the jitter the random source gives', () => {
    const timeout = { ok: false, error: { retryable: true } };
    expect(callbackAttemptOutcome(timeout, 0, schedule, NOW, () => 0)).toEqual({ kind: 'retry', nextAttemptAt: new Date(NOW + 800) });
  });

  it('fails the delivery once the round has used every retry of the schedule', () => {
    const timeout = { ok: false, error: { retryable: true } };
    expect(callbackAttemptOutcome(timeout, 3, schedule, NOW, middle)).toEqual({ kind: 'failed' });
    expect(
      callbackAttemptOutcome(timeout, DEFAULT_CALLBACK_RETRY_SCHEDULE.maxRetries, DEFAULT_CALLBACK_RETRY_SCHEDULE, NOW, middle),
    ).toEqual({
      kind: 'failed',
    });
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
