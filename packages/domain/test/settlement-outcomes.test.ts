import { merchantLegConfirmed, roundOutcome, settlementRunsAgain, type LegOutcome, type SettlementOutcome } from '../src';

const OUTCOMES: SettlementOutcome[] = ['forwarded', 'in_flight', 'held', 'orphaned', 'not_final', 'busy', 'error', 'needs_attention'];

describe('settlement outcomes', () => {
  it('runs again after in_flight, busy and not_final only', () => {
    const again = OUTCOMES.filter(settlementRunsAgain);
    expect(again).toEqual(['in_flight', 'not_final', 'busy']);
  });

  it("a round's outcome: in flight while any leg is, then needs attention, else forwarded", () => {
    expect(roundOutcome(['confirmed', 'in_flight', 'needs_attention'])).toBe('in_flight');
    expect(roundOutcome(['confirmed', 'needs_attention'])).toBe('needs_attention');
    expect(roundOutcome(['confirmed', 'confirmed'])).toBe('forwarded');
    expect(roundOutcome([])).toBe('forwarded');
  });

  it("the merchant's leg is what the callback waits for; every leg when the split pays the merchant nothing", () => {
    const legs = (merchant: LegOutcome | undefined, platform: LegOutcome | undefined) => [
      { kind: 'merchant' as const, outcome: merchant },
      { kind: 'platform' as const, outcome: platform },
    ];
    expect(merchantLegConfirmed(legs('confirmed', 'in_flight'))).toBe(true);
    expect(merchantLegConfirmed(legs('in_flight', 'confirmed'))).toBe(false);
    expect(merchantLegConfirmed(legs(undefined, 'confirmed'))).toBe(false);
    expect(
      merchantLegConfirmed([
        { kind: 'platform', outcome: 'confirmed' },
        { kind: 'affiliate', outcome: 'confirmed' },
      ]),
    ).toBe(true);
    expect(
      merchantLegConfirmed([
        { kind: 'platform', outcome: 'confirmed' },
        { kind: 'affiliate', outcome: undefined },
      ]),
    ).toBe(false);
  });
});
