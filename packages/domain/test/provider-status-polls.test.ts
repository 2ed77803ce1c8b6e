import { DEFAULT_STATUS_POLL_SCHEDULE, isFinalProviderStatus, nextStatusPollAt, statusPollDelayMs } from '../src';

const schedule = DEFAULT_STATUS_POLL_SCHEDULE;

describe('provider status polls', () => {
  it('stops at paid, declined and failed, and asks again while pending or unknown', () => {
    expect(['paid', 'declined', 'failed'].map((status) => isFinalProviderStatus(status as 'paid'))).toEqual([true, true, true]);
    expect(isFinalProviderStatus('pending')).toBe(false);
    expect(isFinalProviderStatus(null)).toBe(false);
  });

  it('waits 30 s, then doubles up to 10 minutes', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 100].map((polls) => statusPollDelayMs(polls, schedule) / 1000)).toEqual([
      30, 60, 120, 240, 480, 600, 600, 600,
    ]);
  });

  it('schedules the next look-up from now, and none once final or past the maximum age', () => {
    const createdAt = new Date('2026-11-27T10:00:00Z');
    const now = new Date('2026-11-27T10:01:00Z');
    expect(nextStatusPollAt({ providerStatus: 'pending', polls: 1, createdAt }, now, schedule)).toEqual(new Date('2026-11-27T10:02:00Z'));
    expect(nextStatusPollAt({ providerStatus: 'paid', polls: 1, createdAt }, now, schedule)).toBeNull();
    expect(nextStatusPollAt({ providerStatus: 'declined', polls: 0, createdAt }, now, schedule)).toBeNull();
    const late = new Date(createdAt.getTime() + schedule.maxAgeMs - 60_000);
    expect(nextStatusPollAt({ providerStatus: null, polls: 9, createdAt }, late, schedule)).toBeNull();
  });
});
