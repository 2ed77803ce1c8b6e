import { parseFiatAmount, parseRate, quoteOnRamp, type RateTable } from '../src';

const rates: RateTable = new Map([
  ['EUR', parseRate('0.92')],
  ['INR', parseRate('83.1')],
]);

describe('quoteOnRamp', () => {
  it('delivers dollars 1:1 less the fee', () => {
    expect(quoteOnRamp(parseFiatAmount('100'), 'USD', rates, 150)).toEqual({
      grossUsdc: 100_000_000n,
      feeUsdc: 1_500_000n,
      netUsdc: 98_500_000n,
    });
  });

  it('converts through the rate table, rounding the conversion down and the fee up', () => {
    // 49.99 EUR / 0.92 = 54.336956…: 54.336956 USDC; 1.5% of it = 0.81505434 → 0.815055.
    expect(quoteOnRamp(parseFiatAmount('49.99'), 'EUR', rates, 150)).toEqual({
      grossUsdc: 54_336_956n,
      feeUsdc: 815_055n,
      netUsdc: 53_521_901n,
    });
  });

  it('takes no fee at 0 bps and refuses a currency without a rate', () => {
    expect(quoteOnRamp(parseFiatAmount('0.01'), 'USD', rates, 0).netUsdc).toBe(10_000n);
    expect(() => quoteOnRamp(parseFiatAmount('10'), 'CAD', rates, 150)).toThrow(/CAD has no exchange rate/);
    expect(() => quoteOnRamp(parseFiatAmount('10'), 'USD', rates, 10_000)).toThrow(RangeError);
  });

  it('refuses a fee that is not a whole number of basis points below 100%', () => {
    expect(quoteOnRamp(parseFiatAmount('1'), 'USD', rates, 9_999).netUsdc).toBe(100n);
    for (const feeBps of [-1, 1.5, 10_000, Number.NaN]) {
      expect(() => quoteOnRamp(parseFiatAmount('10'), 'USD', rates, feeBps)).toThrow(
        new RangeError(`feeBps must be an integer in [0, 10000), got ${feeBps}`),
      );
    }
  });

  it('names the currency parameter when a rate is missing', () => {
    expect(() => quoteOnRamp(parseFiatAmount('10'), 'CAD', rates, 150)).toThrow(
      expect.objectContaining({
        code: 'unsupported_currency',
        param: 'currency',
        message: 'currency CAD has no exchange rate configured; pay in USD or ask the operator to add a rate',
      }),
    );
  });
});
