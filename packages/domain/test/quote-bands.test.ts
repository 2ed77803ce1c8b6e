import { QUOTE_BAND_BPS, quoteBandOf, scaleQuote } from '../src/quote-bands';

describe('quote bands', () => {
  it('puts every amount in the band whose edges surround it, and neighbours share an edge', () => {
    for (const amount of [1n, 2n, 49n, 50n, 51n, 999n, 2_500n, 2_549n, 10_000n, 123_456_789n, 10n ** 13n]) {
      const band = quoteBandOf(amount);
      expect(band.lower).toBeLessThanOrEqual(amount);
      expect(band.upper).toBeGreaterThan(amount);
      expect(quoteBandOf(band.upper).index).toBe(band.index + 1);
      expect(quoteBandOf(band.upper).lower).toBe(band.upper);
      if (band.lower > 1n) expect(quoteBandOf(band.lower - 1n).index).toBe(band.index - 1);
    }
  });

  it('keeps every band within QUOTE_BAND_BPS of its lower edge, or one minor unit wide', () => {
    let amount = 1n;
    let bands = 0;
    while (amount <= 10n ** 14n) {
      const band = quoteBandOf(amount);
      const width = band.upper - band.lower;
      expect(width === 1n || width * 10_000n <= band.lower * BigInt(QUOTE_BAND_BPS)).toBe(true);
      amount = band.upper;
      bands += 1;
    }
    // Few bands: the cache holds at most this many quotes per provider and currency.
    expect(bands).toBeLessThan(1_700);
  });

  it('gives nearby order amounts one band and distant ones another', () => {
    expect(quoteBandOf(2_500n).index).toBe(quoteBandOf(2_520n).index);
    expect(quoteBandOf(2_500n).index).not.toBe(quoteBandOf(2_600n).index);
  });

  it.each([0n, -5n, 10n ** 14n + 1n])('has no band for %p', (amount) => {
    expect(() => quoteBandOf(amount)).toThrow(RangeError);
  });

  describe('scaleQuote', () => {
    it('keeps a total equal to the quoted amount equal to the order amount (fees taken out of it)', () => {
      expect(scaleQuote({ usdc: 24_510_000n, total: '25.00' }, 2_500n, 2_510n)).toEqual({ usdc: 24_608_040n, total: '25.10' });
    });

    it('scales fees on top, the total rounded up and USDC down', () => {
      expect(scaleQuote({ usdc: 100_000_000n, total: '103.07' }, 10_000n, 10_001n)).toEqual({ usdc: 100_010_000n, total: '103.09' });
      expect(scaleQuote({ usdc: 1n, total: '0.01' }, 3n, 2n)).toEqual({ usdc: 0n, total: '0.01' });
    });

    it('keeps a total given with more decimals at its precision', () => {
      expect(scaleQuote({ usdc: 1_000_000n, total: '26.071' }, 2_500n, 2_500n)).toEqual({ usdc: 1_000_000n, total: '26.071' });
    });

    it('refuses what is not a quote', () => {
      expect(() => scaleQuote({ usdc: 1n, total: '1e3' }, 1n, 1n)).toThrow(RangeError);
      expect(() => scaleQuote({ usdc: 1n, total: '1.00' }, 0n, 1n)).toThrow(RangeError);
    });
  });
});
