import type { RecordedExpectation } from '../../src/repositories/payment-repository';

/** What a 25 USD attempt at a 1.5 % provider records (migration 029), for tests whose subject is elsewhere. */
export function sampleExpectation(overrides: Partial<RecordedExpectation> = {}): RecordedExpectation {
  return {
    amountUsd: '25.00',
    usdRate: '1',
    usdRateSource: 'usd',
    usdRateAsOf: new Date('2026-11-28T12:00:00Z'),
    expectedUsdc: 24_625_000n,
    basis: 'estimate',
    toleranceBps: 100,
    windowEndsAt: new Date('2026-11-29T12:00:00Z'),
    ...overrides,
  };
}
