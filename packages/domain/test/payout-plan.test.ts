import { legMismatch, payoutPlan, splitDeposit, type PlannedLeg } from '../src';

const TEMPORARY = '0x1111111111111111111111111111111111111111';
const MERCHANT = '0xAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAa';
const FEE = '0x2222222222222222222222222222222222222222';
const AFFILIATE = '0x3333333333333333333333333333333333333333';
const ATTACKER = '0x4444444444444444444444444444444444444444';

const recipients = { merchant: MERCHANT, platform: FEE, affiliate: AFFILIATE };

describe('the payout plan of a deposit, from the wallet it was paid into', () => {
  it('pays each leg of the split to its recipient, lower-case, the merchant first', () => {
    expect(payoutPlan(10_000_000n, TEMPORARY, { platformFeeBps: 100, affiliateFeeBps: 50 }, recipients)).toEqual([
      { kind: 'merchant', from: TEMPORARY, to: MERCHANT.toLowerCase(), amount: 9_850_000n },
      { kind: 'platform', from: TEMPORARY, to: FEE, amount: 100_000n },
      { kind: 'affiliate', from: TEMPORARY, to: AFFILIATE, amount: 50_000n },
    ]);
  });

  it('splits by the fee the wallet records, whatever else is configured', () => {
    const plan = payoutPlan(10_000_000n, TEMPORARY, { platformFeeBps: 250, affiliateFeeBps: null }, { ...recipients, affiliate: null });
    expect(plan.map((leg) => [leg.kind, leg.amount])).toEqual(splitDeposit(10_000_000n, 250).legs.map((leg) => [leg.kind, leg.amount]));
  });

  it('refuses an affiliate share without an affiliate address', () => {
    expect(() =>
      payoutPlan(10_000_000n, TEMPORARY, { platformFeeBps: 100, affiliateFeeBps: 50 }, { ...recipients, affiliate: null }),
    ).toThrow(/affiliate address/);
  });
});

describe('a leg on record compared with the plan', () => {
  const plan = payoutPlan(5_000_000n, TEMPORARY, { platformFeeBps: 100, affiliateFeeBps: null }, { ...recipients, affiliate: null });
  const [merchant, platform] = plan as [PlannedLeg, PlannedLeg];

  it('accepts exactly the planned leg, in any letter case', () => {
    expect(legMismatch(plan, merchant)).toBeUndefined();
    expect(legMismatch(plan, { ...merchant, to: MERCHANT, from: TEMPORARY.toUpperCase().replace('0X', '0x') })).toBeUndefined();
    expect(legMismatch(plan, platform)).toBeUndefined();
  });

  it.each<[string, PlannedLeg, RegExp]>([
    ['another recipient', { ...merchant, to: ATTACKER }, /merchant leg pays 0x4444.*where the wallet's terms say 0xaaaa/],
    [
      'another amount',
      { ...platform, amount: platform.amount + 1n },
      /platform leg pays 50001 base units, where the wallet's terms say 50000/,
    ],
    ['another temporary wallet', { ...merchant, from: ATTACKER }, /pays from 0x4444.*not the deposit's temporary wallet 0x1111/],
    [
      'a kind the terms do not have',
      { kind: 'affiliate', from: TEMPORARY, to: ATTACKER, amount: 1n },
      /no affiliate leg, yet one pays 1 base units to 0x4444/,
    ],
  ])('refuses %s, saying what differs', (_what, leg, words) => {
    expect(legMismatch(plan, leg)).toMatch(words);
  });

  it('names every difference of one leg', () => {
    expect(legMismatch(plan, { ...merchant, to: ATTACKER, amount: 1n })).toMatch(/pays 0x4444.* and pays 1 base units/);
  });
});
