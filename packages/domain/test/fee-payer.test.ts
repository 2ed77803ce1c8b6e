import { checkoutAmountOf, feePayerOf, feesOnTopEstimate, parseCustomerPaysFee, usdcForFullValue } from '../src/fee-payer';
import { BASIS_POINTS_SCALE, splitWalletDeposit, type WalletFeeTerms } from '../src/fee-split';
import { GatewayError } from '../src/errors';

/** xorshift64*: seeded, so a failing case can be reproduced from its seed. */
function randomSource(seed: bigint): () => bigint {
  let state = seed & 0xffff_ffff_ffff_ffffn || 1n;
  return () => {
    state ^= state >> 12n;
    state ^= (state << 25n) & 0xffff_ffff_ffff_ffffn;
    state ^= state >> 27n;
    return (state * 0x2545f4914f6cdd1dn) & 0xffff_ffff_ffff_ffffn;
  };
}

const merchantOf = (amount: bigint, terms: WalletFeeTerms) => splitWalletDeposit(amount, terms).merchant;

describe('feePayerOf', () => {
  it.each([
    [false, null, 'shop'],
    [true, null, 'customer'],
    [false, true, 'customer'],
    [true, false, 'shop'],
    [true, true, 'customer'],
    [false, false, 'shop'],
    [false, undefined, 'shop'],
  ] as const)('operator %s, wallet %s: %s pays', (operator, wallet, payer) => {
    expect(feePayerOf(operator, wallet)).toBe(payer);
  });
});

describe('parseCustomerPaysFee', () => {
  it('reads 1 and 0', () => {
    expect(parseCustomerPaysFee('1')).toBe(true);
    expect(parseCustomerPaysFee('0')).toBe(false);
  });

  it.each(['', 'yes', 'true', '2', ' 1', '01', '-1'])('refuses %j naming the parameter', (value) => {
    expect.assertions(3);
    try {
      parseCustomerPaysFee(value);
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).param).toBe('customer_pays_fee');
      expect((error as GatewayError).message).toMatch(/^customer_pays_fee must be 1 .* or 0 /);
    }
  });
});

describe('usdcForFullValue', () => {
  // Exhaustive over small orders and a spread of fee terms (custom splits' odd shares included):
  // the merchant's share of the amount is never below the order, and of one base unit less it is.
  const termsList: WalletFeeTerms[] = [
    { platformFeeBps: 0, affiliateFeeBps: null },
    { platformFeeBps: 1, affiliateFeeBps: null },
    { platformFeeBps: 100, affiliateFeeBps: null },
    { platformFeeBps: 100, affiliateFeeBps: 50 },
    { platformFeeBps: 333, affiliateFeeBps: 7 },
    { platformFeeBps: 2_500, affiliateFeeBps: 2_499 },
    { platformFeeBps: 9_999, affiliateFeeBps: null },
    { platformFeeBps: 0, affiliateFeeBps: 9_999 },
  ];

  it.each(termsList)('is the smallest deposit leaving the merchant the order, for every order of 1 to 3,000 units (%o)', (terms) => {
    for (let order = 1n; order <= 3_000n; order++) {
      const amount = usdcForFullValue(order, terms);
      expect(merchantOf(amount, terms)).toBeGreaterThanOrEqual(order);
      if (amount > 1n) expect(merchantOf(amount - 1n, terms)).toBeLessThan(order);
    }
  });

  it('holds for random large orders and fee terms (seeded)', () => {
    const next = randomSource(0x5eed_fee5n);
    for (let i = 0; i < 5_000; i++) {
      const order = (next() % 10n ** 15n) + 1n;
      const platformFeeBps = Number(next() % 3_000n);
      const affiliateFeeBps = next() % 2n === 0n ? null : Number(next() % 2_000n);
      const terms = { platformFeeBps, affiliateFeeBps };
      const amount = usdcForFullValue(order, terms);
      expect(merchantOf(amount, terms)).toBeGreaterThanOrEqual(order);
      expect(merchantOf(amount - 1n, terms)).toBeLessThan(order);
    }
  });

  it('grosses 25 USDC up for a 1 % platform fee: 25.252525 leaves the shop 25.000000, one unit less 24.999999', () => {
    const terms = { platformFeeBps: 100, affiliateFeeBps: null };
    expect(usdcForFullValue(25_000_000n, terms)).toBe(25_252_525n);
    expect(merchantOf(25_252_525n, terms)).toBe(25_000_000n);
    expect(merchantOf(25_252_524n, terms)).toBe(24_999_999n);
  });

  it('asks for the order itself when the wallet pays no fee', () => {
    expect(usdcForFullValue(49_990_000n, { platformFeeBps: 0, affiliateFeeBps: null })).toBe(49_990_000n);
  });

  it('refuses fees that leave the merchant nothing, and an order worth nothing', () => {
    expect(() => usdcForFullValue(1n, { platformFeeBps: BASIS_POINTS_SCALE, affiliateFeeBps: null })).toThrow(RangeError);
    expect(() => usdcForFullValue(1n, { platformFeeBps: 5_000, affiliateFeeBps: 5_000 })).toThrow(RangeError);
    expect(() => usdcForFullValue(0n, { platformFeeBps: 100, affiliateFeeBps: null })).toThrow(RangeError);
  });
});

describe('checkoutAmountOf', () => {
  const terms = { platformFeeBps: 100, affiliateFeeBps: 50 };

  it('puts the fees on top only when the customer pays them and the provider sells a fixed USDC amount', () => {
    expect(checkoutAmountOf({ payer: 'customer', sellsFixedUsdc: true, usdCents: 10_000n, terms })).toEqual({
      feesOnTop: true,
      orderUsdc: 100_000_000n,
      usdc: usdcForFullValue(100_000_000n, terms),
    });
    expect(checkoutAmountOf({ payer: 'customer', sellsFixedUsdc: false, usdCents: 10_000n, terms })).toEqual({ feesOnTop: false });
    expect(checkoutAmountOf({ payer: 'shop', sellsFixedUsdc: true, usdCents: 10_000n, terms })).toEqual({ feesOnTop: false });
  });

  it('keeps the fees inside when the wallet leaves the merchant no share (no amount would bring the full value)', () => {
    const all = { platformFeeBps: 9_000, affiliateFeeBps: 1_000 };
    expect(checkoutAmountOf({ payer: 'customer', sellsFixedUsdc: true, usdCents: 10_000n, terms: all })).toEqual({ feesOnTop: false });
  });
});

describe('feesOnTopEstimate', () => {
  it('scales the order to the USDC bought and grosses it up by the middle fee, rounded up', () => {
    // 100.00 for 100 USDC of value, 101.522843 USDC bought, fees 1.5 %..4.5 % (middle 3 %): 101.522843 / 0.97 = 104.66272…
    expect(
      feesOnTopEstimate({ amountMinorUnits: 10_000n, orderUsdc: 100_000_000n, usdc: 101_522_843n, fees: { minBps: 150, maxBps: 450 } }),
    ).toBe(10_467n);
  });

  it('never tells the customer less than the exact figure', () => {
    const next = randomSource(42n);
    for (let i = 0; i < 2_000; i++) {
      const amountMinorUnits = (next() % 10n ** 9n) + 1n;
      const orderUsdc = (next() % 10n ** 12n) + 1n;
      const usdc = orderUsdc + (next() % 10n ** 10n);
      const minBps = Number(next() % 500n);
      const fees = { minBps, maxBps: minBps + Number(next() % 500n) };
      const total = feesOnTopEstimate({ amountMinorUnits, orderUsdc, usdc, fees });
      const exactNumerator = amountMinorUnits * usdc * 20_000n;
      const exactDenominator = orderUsdc * BigInt(20_000 - fees.minBps - fees.maxBps);
      expect(total * exactDenominator).toBeGreaterThanOrEqual(exactNumerator);
      expect((total - 1n) * exactDenominator).toBeLessThan(exactNumerator);
    }
  });
});
