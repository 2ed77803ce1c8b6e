import {
  classifyOrder,
  formatRate,
  orderBalance,
  parseRate,
  parseRecordedRate,
  restCharge,
  restOptions,
  restProviders,
  type OrderExpectation,
  type ProviderOption,
} from '../src';
import { SAMPLE_PROVIDERS } from './support/sample-providers';

const USD = { numerator: 1n, denominator: 1n };
const usdc = (whole: number) => BigInt(whole) * 1_000_000n;
const windowEndsAt = new Date('2026-11-29T12:00:00Z');
const seenAt = new Date('2026-11-28T13:00:00Z');
// A 50.00 USD order expected to bring 48 USDC (the provider's fee taken), 1 % either way still paid.
const expectation: OrderExpectation = { usdc: usdc(48), basis: 'estimate', toleranceBps: 100, windowEndsAt };
const judge = (...amounts: bigint[]) =>
  classifyOrder(
    amounts.map((amount) => ({ amount, seenAt })),
    expectation,
  );

describe('orderBalance: the judgement in the order’s currency', () => {
  it('underpaid: what arrived and what is missing add up to the order, the missing part rounded up', () => {
    // 20 of 48 USDC: 20/48 of 50.00 = 20.8333… arrived, 29.1666… missing.
    expect(orderBalance(5000n, judge(usdc(20)))).toEqual({ order: 5000n, arrived: 2083n, missing: 2917n, excess: 0n });
  });

  it('paid in full: all of the order arrived, nothing missing', () => {
    expect(orderBalance(5000n, judge(usdc(48)))).toEqual({ order: 5000n, arrived: 5000n, missing: 0n, excess: 0n });
  });

  it('paid within the tolerance but short: nothing is missing (the order is paid)', () => {
    expect(orderBalance(5000n, judge(47_800_000n))).toMatchObject({ missing: 0n, arrived: 4979n });
  });

  it('overpaid: the excess in the order’s currency, rounded down', () => {
    // 60 of 48 USDC: 12 over, 12/48 of 50.00 = 12.50.
    expect(orderBalance(5000n, judge(usdc(60)))).toEqual({ order: 5000n, arrived: 6250n, missing: 0n, excess: 1250n });
  });

  it('awaiting: nothing arrived, the whole order is missing', () => {
    expect(orderBalance(5000n, classifyOrder([], expectation))).toEqual({ order: 5000n, arrived: 0n, missing: 5000n, excess: 0n });
  });

  it('never tells less missing than is missing, whatever the figures', () => {
    for (const order of [1n, 99n, 4999n, 12_345n, 100_000_000n]) {
      for (const expected of [1n, 7n, 47_999_999n, 48_000_000n, 333_333_333n]) {
        for (const total of [1n, expected / 3n, expected - 1n]) {
          if (total <= 0n || total >= expected) continue;
          const balance = orderBalance(order, { totalUsdc: total, expectedUsdc: expected, missingUsdc: expected - total, excessUsdc: 0n });
          // missing / order >= (expected - total) / expected, and arrived + missing = order.
          expect(balance.missing * expected).toBeGreaterThanOrEqual((expected - total) * order);
          expect((balance.missing - 1n) * expected).toBeLessThan((expected - total) * order);
          expect(balance.arrived + balance.missing).toBe(order);
        }
      }
    }
  });

  it('an order expected to bring nothing has no price for its USDC: nothing is said missing or over', () => {
    expect(orderBalance(5000n, { totalUsdc: 5n, expectedUsdc: 0n, missingUsdc: 0n, excessUsdc: 5n })).toEqual({
      order: 5000n,
      arrived: 5000n,
      missing: 0n,
      excess: 0n,
    });
  });
});

describe('restCharge: what to ask a provider for so that the missing USDC arrives', () => {
  it('grosses the missing USDC up by the provider’s largest documented fee and rounds up to the cent', () => {
    // 28 USDC / (1 − 5 %) = 29.4736… USD → 29.48.
    expect(restCharge(usdc(28), { fees: { minBps: 300, maxBps: 500 } }, USD)).toBe(2948n);
    // No fee: the missing USDC itself.
    expect(restCharge(usdc(28), { fees: { minBps: 0, maxBps: 0 } }, USD)).toBe(2800n);
    expect(restCharge(1n, { fees: { minBps: 0, maxBps: 0 } }, USD)).toBe(1n);
  });

  it('converts to the order’s currency at its recorded rate, rounding once, at the end', () => {
    // 28 / 0.95 × 0.92 = 27.1157… EUR → 27.12.
    expect(restCharge(usdc(28), { fees: { minBps: 300, maxBps: 500 } }, parseRate('0.92'))).toBe(2712n);
    // 10 / 0.961 × 83.1 = 864.7242… INR → 864.73.
    expect(restCharge(usdc(10), { fees: { minBps: 0, maxBps: 390 } }, parseRate('83.1'))).toBe(86473n);
  });

  it('is never short: the charge less the largest fee brings the missing USDC, a cent less would not', () => {
    const fees = { minBps: 100, maxBps: 777 };
    for (const missing of [1n, 999_999n, 28_000_001n, 123_456_789n]) {
      for (const rate of [USD, parseRate('0.92'), parseRate('1.37'), parseRate('0.0123')]) {
        const charge = restCharge(missing, { fees }, rate);
        // USD cents that reach the wallet after the fee, times 10⁴ (base units per cent), against the missing base units.
        const delivered = (cents: bigint) => (cents * rate.denominator * (10_000n - 777n) * 10_000n) / (rate.numerator * 10_000n);
        expect(delivered(charge)).toBeGreaterThanOrEqual(missing);
        expect((charge - 1n) * rate.denominator * (10_000n - 777n) * 10_000n).toBeLessThan(missing * rate.numerator * 10_000n);
      }
    }
  });

  it('asks nothing when nothing is missing, and refuses a fee of 100 % or more', () => {
    expect(restCharge(0n, { fees: { minBps: 300, maxBps: 500 } }, USD)).toBe(0n);
    expect(() => restCharge(usdc(1), { fees: { minBps: 0, maxBps: 10_000 } }, USD)).toThrow(RangeError);
    expect(() => restCharge(usdc(1), { fees: { minBps: 0, maxBps: 1.5 } }, USD)).toThrow(RangeError);
  });
});

describe('restOptions: the providers whose rules take the rest', () => {
  const summary = (options: ProviderOption[]) =>
    Object.fromEntries(
      options.map((option) => [
        option.provider.id,
        option.status === 'available' ? `${option.charge.amount.text} ${option.charge.currency}` : `${option.status}: ${option.reason}`,
      ]),
    );

  it('a 28 USDC rest of a USD order: each provider’s charge, those whose minimum it misses unavailable', () => {
    const options = summary(restOptions({ missingUsdc: usdc(28), currency: 'USD', rate: USD, offered: SAMPLE_PROVIDERS }));
    expect(options.moonpay).toBe('29.48 USD');
    expect(options.wert).toBe('29.48 USD');
    expect(options.sardine).toBe('unavailable: Minimum 30.00 USD');
    expect(options.utorg).toBe('unavailable: Minimum 50.00 USD');
    // Interac (CAD) and UPI (INR) are not for a USD order at all.
    expect(options.interac).toBeUndefined();
    expect(options.upi).toBeUndefined();
  });

  it('a provider’s own fees price its charge', () => {
    const cheap = { ...SAMPLE_PROVIDERS[0]!, id: 'cheap', fees: { minBps: 0, maxBps: 0 } };
    expect(summary(restOptions({ missingUsdc: usdc(28), currency: 'USD', rate: USD, offered: [cheap] }))).toEqual({ cheap: '28.00 USD' });
  });

  it('an EUR rest: priced at the recorded rate, a USD-only provider asked for it converted at that same rate', () => {
    const offered = SAMPLE_PROVIDERS.filter((provider) => ['moonpay', 'wert'].includes(provider.id));
    const options = restOptions({ missingUsdc: usdc(28), currency: 'EUR', rate: parseRate('0.92'), offered });
    // 27.12 EUR for MoonPay; Wert takes USD: 27.12 / 0.92 = 29.4782… → 29.48 USD.
    expect(summary(options)).toEqual({ moonpay: '27.12 EUR', wert: '29.48 USD' });
    expect(restProviders(options).map((option) => [option.provider.id, option.converted])).toEqual([
      ['wert', true],
      ['moonpay', false],
    ]);
  });

  it('a rest below every minimum: none can take it', () => {
    const options = restOptions({ missingUsdc: 500_000n, currency: 'USD', rate: USD, offered: SAMPLE_PROVIDERS });
    // 0.50 / 0.95 = 0.5263… → 0.53 USD, under Wert's 1.00.
    expect(summary(options).wert).toBe('unavailable: Minimum 1.00 USD');
    expect(restProviders(options)).toEqual([]);
  });

  it('a rest beyond the largest amount is unavailable, and nothing missing offers nothing', () => {
    const huge = restOptions({ missingUsdc: usdc(999_999), currency: 'USD', rate: USD, offered: SAMPLE_PROVIDERS.slice(0, 1) });
    expect(summary(huge)).toEqual({ wert: 'unavailable: Maximum 1000000 USD' });
    expect(restOptions({ missingUsdc: 0n, currency: 'USD', rate: USD, offered: SAMPLE_PROVIDERS })).toEqual([]);
  });
});

describe('parseRecordedRate: the rate a rest is priced at, as its order recorded it', () => {
  it.each(['1', '0.92', '83.1', '1/3', '1250/1369'])('reads back %s exactly', (recorded) => {
    expect(formatRate(parseRecordedRate(recorded))).toBe(recorded);
  });

  it('refuses what formatRate never writes', () => {
    for (const text of ['', '0', '0/3', '3/0', '-1', '1e3', '1/3/4', ' 1']) expect(() => parseRecordedRate(text)).toThrow();
  });
});
