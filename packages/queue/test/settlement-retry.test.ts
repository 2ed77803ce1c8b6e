import { Backoffs, type MinimalJob } from 'bullmq';
import { settlementJobOptions, settlementWorkerSettings, SETTLEMENT_RETRY_MAX_DELAY_MS } from '../src';

/** The delay BullMQ waits before retrying a settlement job that failed `attemptsMade` times. */
async function retryDelayAfter(attemptsMade: number): Promise<number> {
  const backoff = Backoffs.normalize(settlementJobOptions.backoff!)!;
  const delay = await Backoffs.calculate(
    backoff,
    attemptsMade,
    new Error('chain request failed'),
    {} as MinimalJob,
    settlementWorkerSettings.backoffStrategy,
  );
  return delay!;
}

describe('settlement job retries', () => {
  it('never wait more than a few minutes, however often the job failed', async () => {
    // Uncapped, 2 s · 2^(n-1) is 9 hours after 15 failures and 34 years after 30.
    expect(await retryDelayAfter(30)).toBeLessThanOrEqual(5 * 60_000);
    for (const attemptsMade of [15, 16, 20, 30, 999, 5_000])
      expect(await retryDelayAfter(attemptsMade)).toBe(SETTLEMENT_RETRY_MAX_DELAY_MS);
  });

  it('start at about two seconds and grow, so a node that is down is not hammered', async () => {
    const delays = [];
    for (let attemptsMade = 1; attemptsMade <= 12; attemptsMade += 1) delays.push(await retryDelayAfter(attemptsMade));
    expect(delays[0]).toBe(2_000);
    expect(delays[1]).toBe(4_000);
    for (let i = 1; i < delays.length; i += 1) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
  });
});
