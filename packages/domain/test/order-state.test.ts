import {
  attemptExpectation,
  formatRate,
  parseFiatAmount,
  parseRate,
  classifyOrder,
  expectUsdc,
  GatewayError,
  MAX_ORDER_TOLERANCE_BPS,
  type OrderExpectation,
  orderStanding,
  orderToleranceBps,
  parseToleranceBps,
  QUOTED_TOLERANCE_BPS,
} from '../src';

const windowEndsAt = new Date('2026-11-29T12:00:00Z');
const inWindow = new Date('2026-11-28T13:00:00Z');
const afterWindow = new Date('2026-11-29T12:00:00.001Z');
// 50.000000 USDC expected, 1 % either way still paid: 49.5 to 50.5 USDC.
const expectation: OrderExpectation = { usdc: 50_000_000n, basis: 'estimate', toleranceBps: 100, windowEndsAt };
const deposit = (amount: bigint, seenAt = inWindow) => ({ amount, seenAt });

describe('an order is classified from its final deposits against its expectation', () => {
  it('is awaiting until anything arrives, with the whole amount missing', () => {
    expect(classifyOrder([], expectation)).toMatchObject({
      state: 'awaiting',
      totalUsdc: 0n,
      expectedUsdc: 50_000_000n,
      missingUsdc: 50_000_000n,
    });
  });

  it.each([
    ['one base unit below the tolerance', 49_499_999n, 'underpaid'],
    ['exactly at the lower tolerance', 49_500_000n, 'paid'],
    ['exactly as expected', 50_000_000n, 'paid'],
    ['exactly at the upper tolerance', 50_500_000n, 'paid'],
    ['one base unit above the tolerance', 50_500_001n, 'overpaid'],
  ])('%s is %s', (_case, amount, state) => {
    expect(classifyOrder([deposit(amount)], expectation).state).toBe(state);
  });

  it('says how much is missing from an underpaid order, from the expectation itself', () => {
    const order = classifyOrder([deposit(20_000_000n)], expectation);
    expect(order).toMatchObject({ state: 'underpaid', totalUsdc: 20_000_000n, missingUsdc: 30_000_000n, excessUsdc: 0n });
    expect(order.reason).toBe(
      '20 USDC arrived, 30 short of 50 USDC expected (an estimate from its documented fees), more than the 100 basis points allowed',
    );
  });

  it('says what an overpaid order brought beyond its expectation', () => {
    expect(classifyOrder([deposit(60_000_000n)], expectation)).toMatchObject({
      state: 'overpaid',
      excessUsdc: 10_000_000n,
      missingUsdc: 0n,
    });
  });

  it('adds two deposits into one order: short after the first, paid after the second', () => {
    expect(classifyOrder([deposit(30_000_000n)], expectation).state).toBe('underpaid');
    expect(classifyOrder([deposit(30_000_000n), deposit(19_900_000n)], expectation)).toMatchObject({
      state: 'paid',
      totalUsdc: 49_900_000n,
      missingUsdc: 0n,
    });
  });

  it('is late when USDC arrives after the window, whatever the sum, and says how much was late', () => {
    expect(classifyOrder([deposit(50_000_000n, afterWindow)], expectation)).toMatchObject({ state: 'late', lateUsdc: 50_000_000n });
    expect(classifyOrder([deposit(50_000_000n), deposit(1_000_000n, afterWindow)], expectation)).toMatchObject({
      state: 'late',
      totalUsdc: 51_000_000n,
      lateUsdc: 1_000_000n,
    });
  });

  it('counts a deposit seen exactly at the end of the window as in time', () => {
    expect(classifyOrder([deposit(50_000_000n, windowEndsAt)], expectation).state).toBe('paid');
  });

  it('judges an exact expectation exactly with a zero tolerance', () => {
    const strict = { ...expectation, toleranceBps: 0 };
    expect(classifyOrder([deposit(49_999_999n)], strict).state).toBe('underpaid');
    expect(classifyOrder([deposit(50_000_000n)], strict).state).toBe('paid');
    expect(classifyOrder([deposit(50_000_001n)], strict).state).toBe('overpaid');
  });
});

describe("an attempt's expectation", () => {
  it("is the provider's quote when it gave one, with a quote's drift as tolerance", () => {
    expect(expectUsdc({ usdCents: 5_000n, fees: { minBps: 100, maxBps: 500 }, quotedUsdc: 47_210_000n })).toEqual({
      usdc: 47_210_000n,
      basis: 'quote',
      toleranceBps: QUOTED_TOLERANCE_BPS,
    });
  });

  it('is estimated from the middle of the documented fee range otherwise, widened by half the range', () => {
    // 50 USD less 3 % (the middle of 1–5 %) = 48.5 USDC; tolerance 1 % + 2 %.
    expect(expectUsdc({ usdCents: 5_000n, fees: { minBps: 100, maxBps: 500 } })).toEqual({
      usdc: 48_500_000n,
      basis: 'estimate',
      toleranceBps: 300,
    });
  });

  it('rounds an estimate down to the base unit and half a basis point of range up', () => {
    expect(expectUsdc({ usdCents: 1n, fees: { minBps: 0, maxBps: 1 } })).toEqual({ usdc: 9_999n, basis: 'estimate', toleranceBps: 101 });
  });

  it("takes the operator's tolerance over the derived one, for a quote and an estimate alike", () => {
    expect(expectUsdc({ usdCents: 5_000n, fees: { minBps: 100, maxBps: 500 }, operatorToleranceBps: 50 }).toleranceBps).toBe(50);
    expect(expectUsdc({ usdCents: 5_000n, fees: { minBps: 100, maxBps: 500 }, quotedUsdc: 1n, operatorToleranceBps: 0 }).toleranceBps).toBe(
      0,
    );
  });

  it('treats a quote of nothing as no quote', () => {
    expect(expectUsdc({ usdCents: 5_000n, fees: { minBps: 0, maxBps: 0 }, quotedUsdc: 0n })).toMatchObject({
      usdc: 50_000_000n,
      basis: 'estimate',
    });
  });

  it.each([[{ minBps: 500, maxBps: 100 }], [{ minBps: -1, maxBps: 100 }], [{ minBps: 0, maxBps: 10_000 }], [{ minBps: 0.5, maxBps: 100 }]])(
    'refuses a fee range that is not one: %j',
    (fees) => {
      expect(() => expectUsdc({ usdCents: 5_000n, fees })).toThrow(RangeError);
    },
  );
});

describe('the tolerance', () => {
  it("is narrowed by the merchant's own, never widened", () => {
    expect(orderToleranceBps(300, null)).toBe(300);
    expect(orderToleranceBps(300, undefined)).toBe(300);
    expect(orderToleranceBps(300, 50)).toBe(50);
    expect(orderToleranceBps(300, 900)).toBe(300);
  });

  it.each(['0', '150', String(MAX_ORDER_TOLERANCE_BPS)])('reads %s basis points', (input) => {
    expect(parseToleranceBps(input, 'order_tolerance_bps')).toBe(Number(input));
  });

  it.each(['5001', '-1', '1.5', '', ' 10', '1e3', '100000', 'abc'])('refuses %j, naming the parameter', (input) => {
    const error = (() => {
      try {
        parseToleranceBps(input, 'order_tolerance_bps');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ param: 'order_tolerance_bps', statusCode: 400 });
    expect((error as Error).message).toMatch(/^order_tolerance_bps must be a whole number of basis points from 0 to 5000/);
  });
});

describe("an order's standing", () => {
  it('is judged with the tolerance narrowed by the merchant', () => {
    const facts = { expectation: { ...expectation, toleranceBps: 300 }, deposits: [deposit(49_000_000n)] };
    expect(orderStanding({ ...facts, walletToleranceBps: null }).judged?.state).toBe('paid');
    expect(orderStanding({ ...facts, walletToleranceBps: 100 }).judged?.state).toBe('underpaid');
  });

  it('says only what arrived when no attempt recorded what the order should bring', () => {
    expect(orderStanding({ walletToleranceBps: null, deposits: [deposit(1n), deposit(2n)] })).toEqual({ totalUsdc: 3n });
  });
});

describe("a Process Payment attempt's expectation", () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const fees = { minBps: 150, maxBps: 150 };

  it('values a USD order as itself, and opens its window from now', () => {
    expect(attemptExpectation({ amount: parseFiatAmount('50.00'), currency: 'USD', fees, now, windowHours: 24 })).toEqual({
      usdCents: 5_000n,
      usdc: 49_250_000n,
      basis: 'estimate',
      toleranceBps: QUOTED_TOLERANCE_BPS,
      windowEndsAt: new Date('2026-11-29T12:00:00Z'),
    });
  });

  it('values another currency at its rate, rounded up to the cent', () => {
    // 46 EUR at 0.92 EUR per USD = 50 USD; 10 EUR at 0.92 = 10.869… → 10.87 USD.
    const rate = parseRate('0.92');
    expect(attemptExpectation({ amount: parseFiatAmount('46'), currency: 'EUR', rate, fees, now, windowHours: 1 }).usdCents).toBe(5_000n);
    expect(attemptExpectation({ amount: parseFiatAmount('10'), currency: 'EUR', rate, fees, now, windowHours: 1 }).usdCents).toBe(1_087n);
  });

  it('refuses to value a foreign order without its rate', () => {
    expect(() => attemptExpectation({ amount: parseFiatAmount('10'), currency: 'EUR', fees, now, windowHours: 1 })).toThrow(RangeError);
  });
});

describe('a rate as recorded', () => {
  it.each([
    ['0.92', '0.92'],
    ['1', '1'],
    ['151.250', '151.25'],
  ])('keeps the decimal %s as %s', (input, recorded) => {
    expect(formatRate(parseRate(input))).toBe(recorded);
  });

  it('writes a reduced fraction that is a decimal as one', () => {
    expect(formatRate({ numerator: 4n, denominator: 5n })).toBe('0.8');
    expect(formatRate({ numerator: 1n, denominator: 8n })).toBe('0.125');
  });

  it('writes a fraction that is no decimal exactly', () => {
    expect(formatRate({ numerator: 1n, denominator: 3n })).toBe('1/3');
  });
});
