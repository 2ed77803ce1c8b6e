import { BASIS_POINTS_SCALE, isDustDeposit, splitDeposit, type FeeSplit } from '../src/fee-split';

/** xorshift64*: a seeded generator, so a failing case can be reproduced from its seed. */
function randomSource(seed: bigint): () => bigint {
  let state = seed & 0xffff_ffff_ffff_ffffn || 1n;
  return () => {
    state ^= state >> 12n;
    state ^= (state << 25n) & 0xffff_ffff_ffff_ffffn;
    state ^= state >> 27n;
    return (state * 0x2545f4914f6cdd1dn) & 0xffff_ffff_ffff_ffffn;
  };
}

function legTotal(split: FeeSplit): bigint {
  return split.legs.reduce((sum, leg) => sum + leg.amount, 0n);
}

describe('splitDeposit', () => {
  it('takes 1% for the platform and gives the merchant the rest', () => {
    const split = splitDeposit(10_000_000n, 100);
    expect(split).toEqual({
      merchant: 9_900_000n,
      platformFee: 100_000n,
      affiliateFee: 0n,
      totalFee: 100_000n,
      legs: [
        { kind: 'merchant', amount: 9_900_000n },
        { kind: 'platform', amount: 100_000n },
      ],
    });
  });

  it('adds an affiliate leg when the wallet has an affiliate share', () => {
    const split = splitDeposit(25_000_000n, 100, 50);
    expect(split.legs).toEqual([
      { kind: 'merchant', amount: 24_625_000n },
      { kind: 'platform', amount: 250_000n },
      { kind: 'affiliate', amount: 125_000n },
    ]);
    expect(split.totalFee).toBe(375_000n);
  });

  it('rounds the total fee down, the affiliate share down, and gives the platform the odd unit', () => {
    // 1% of 199 base units is 1.99: the platform gets 1, the merchant 198.
    expect(splitDeposit(199n, 100)).toMatchObject({ platformFee: 1n, merchant: 198n });
    // 0.5% + 0.25% of 333 = 2.4975 in all: fee 2, of which the affiliate's 0.8325 rounds to 0.
    expect(splitDeposit(333n, 50, 25)).toMatchObject({ totalFee: 2n, affiliateFee: 0n, platformFee: 2n, merchant: 331n });
  });

  it('leaves out legs that would move nothing', () => {
    expect(splitDeposit(99n, 100).legs).toEqual([{ kind: 'merchant', amount: 99n }]);
    expect(splitDeposit(1n, 100, 100).legs).toEqual([{ kind: 'merchant', amount: 1n }]);
    expect(splitDeposit(1_000n, 0).legs).toEqual([{ kind: 'merchant', amount: 1_000n }]);
    expect(splitDeposit(1_000n, BASIS_POINTS_SCALE).legs).toEqual([{ kind: 'platform', amount: 1_000n }]);
  });

  it('splits amounts far beyond any float without losing a unit', () => {
    const amount = 2n ** 200n + 12_345n;
    const split = splitDeposit(amount, 137, 29);
    expect(legTotal(split)).toBe(amount);
    expect(split.totalFee).toBe((amount * 166n) / 10_000n);
  });

  it.each([
    [0n, 100, 0, /positive/],
    [-5n, 100, 0, /positive/],
    [100n, -1, 0, /platformFeeBps/],
    [100n, 1.5, 0, /platformFeeBps/],
    [100n, 100, 10_001, /affiliateFeeBps/],
    [100n, 6_000, 5_000, /^platform \(6000\) and affiliate \(5000\) fees together exceed 100%$/],
  ])('refuses amount %p with fees %p/%p', (amount, platform, affiliate, message) => {
    expect(() => splitDeposit(amount, platform, affiliate)).toThrow(message);
  });

  describe('invariants over many amounts and fee settings', () => {
    const next = randomSource(0x5e771e5n);
    const cases = Array.from({ length: 20_000 }, (_, i) => {
      // Mix tiny amounts (where rounding bites), typical ones and huge ones.
      const magnitude = [10n, 1_000_000n, 10n ** 12n, 2n ** 96n][i % 4] as bigint;
      const amount = (next() % magnitude) + 1n;
      const platform = Number(next() % 1_001n);
      const affiliate = i % 3 === 0 ? 0 : Number(next() % BigInt(BASIS_POINTS_SCALE - platform + 1));
      return { amount, platform, affiliate };
    });

    /** Runs `check` over every case and reports the first few that break it, with their inputs. */
    function expectForAll(check: (split: FeeSplit, amount: bigint, platform: number, affiliate: number) => boolean) {
      const broken = cases.filter(
        ({ amount, platform, affiliate }) => !check(splitDeposit(amount, platform, affiliate), amount, platform, affiliate),
      );
      expect(broken.slice(0, 5)).toEqual([]);
    }

    it('the legs always sum to the deposit exactly, and every leg is positive', () => {
      expectForAll(
        (split, amount) =>
          legTotal(split) === amount && split.merchant + split.totalFee === amount && split.legs.every((leg) => leg.amount > 0n),
      );
    });

    it('the total fee is the exact combined share rounded down, so the merchant never gets less than its share', () => {
      expectForAll((split, amount, platform, affiliate) => {
        const exactFeeTimesScale = amount * BigInt(platform + affiliate);
        return split.totalFee * 10_000n <= exactFeeTimesScale && exactFeeTimesScale < (split.totalFee + 1n) * 10_000n;
      });
    });

    it('the affiliate gets its share rounded down and the platform its share give or take one unit', () => {
      expectForAll((split, amount, platform, affiliate) => {
        const affiliateOk = split.affiliateFee === (amount * BigInt(affiliate)) / 10_000n;
        const platformFloor = (amount * BigInt(platform)) / 10_000n;
        return affiliateOk && split.platformFee >= platformFloor && split.platformFee <= platformFloor + 1n;
      });
    });

    it('is monotonic: a larger deposit never pays the merchant less', () => {
      expectForAll((split, amount, platform, affiliate) => splitDeposit(amount + 1n, platform, affiliate).merchant >= split.merchant);
    });
  });
});

describe('isDustDeposit', () => {
  it('holds amounts strictly below the threshold', () => {
    expect(isDustDeposit(9_999n, 10_000n)).toBe(true);
    expect(isDustDeposit(10_000n, 10_000n)).toBe(false);
    expect(isDustDeposit(1n, 0n)).toBe(false);
  });
});
