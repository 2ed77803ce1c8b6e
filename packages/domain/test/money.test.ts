import { convertToUsdMinorUnits, convertUsdMinorUnits, formatUsdc, parseFiatAmount, parseRate, parseUsdc } from '../src/money';
import { GatewayError } from '../src/errors';

describe('parseFiatAmount', () => {
  it.each([
    ['10', '10.00', 1000n],
    ['0.5', '0.50', 50n],
    ['49.99', '49.99', 4999n],
    ['007.10', '7.10', 710n],
    ['1000000', '1000000.00', 100000000n],
  ])('accepts %s', (input, text, minor) => {
    expect(parseFiatAmount(input)).toEqual({ text, minorUnits: minor });
  });

  it.each(['1e3', '-1', '0', '0.00', 'NaN', '1,5', '', ' 1', '1.', '.5', '1.234', 'Infinity', '0x10', '+5', '1000000.01'])(
    'refuses %p with a message naming the parameter',
    (input) => {
      const error = (() => {
        try {
          parseFiatAmount(input);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).param).toBe('amount');
      expect((error as GatewayError).statusCode).toBe(400);
    },
  );
});

describe('USDC base units', () => {
  it('formats without float rounding', () => {
    expect(formatUsdc(1n)).toBe('0.000001');
    expect(formatUsdc(10_000_000n)).toBe('10');
    expect(formatUsdc(123_456_789_012_345_678n)).toBe('123456789012.345678');
    expect(formatUsdc(1_500_000n)).toBe('1.5');
  });
  it('parses exactly and round-trips', () => {
    expect(parseUsdc('0.1')).toBe(100_000n);
    expect(parseUsdc('5')).toBe(5_000_000n);
    expect(parseUsdc('9007199254740993.000001')).toBe(9007199254740993000001n);
    expect(formatUsdc(parseUsdc('0.3'))).toBe('0.3');
    expect(() => parseUsdc('0.0000001')).toThrow(GatewayError);
  });
});

describe('exchange rates', () => {
  it('converts USD minimums up, never down', () => {
    const eur = parseRate('0.92');
    expect(convertUsdMinorUnits(1500n, eur)).toBe(1380n);
    const odd = parseRate('1.333333');
    expect(convertUsdMinorUnits(100n, odd)).toBe(134n);
  });
  it('refuses rates that are not positive decimals', () => {
    expect(() => parseRate('0')).toThrow();
    expect(() => parseRate('1e2')).toThrow();
  });
});

describe('convertToUsdMinorUnits', () => {
  it('rounds up to the cent, so a USD amount never falls short of the order', () => {
    const eur = parseRate('0.92');
    expect(convertToUsdMinorUnits(4999n, eur)).toBe(5434n); // 49.99 / 0.92 = 54.3369… → 54.34
    expect(convertToUsdMinorUnits(9200n, eur)).toBe(10000n); // exact stays exact
    expect(convertToUsdMinorUnits(1n, parseRate('83.1'))).toBe(1n);
  });
});

// The words of each refusal (they reach the API's 400 answers) and the edges of formatting,
// case by case (found by mutation testing: `pnpm mutate`).
describe('what money refusals say', () => {
  const messageOf = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return (error as Error).message;
    }
    return undefined;
  };

  it('parseFiatAmount names the parameter and the rule broken', () => {
    expect(messageOf(() => parseFiatAmount('1e3', 'value'))).toBe(
      'value must be a plain positive decimal with a dot and at most 2 decimals, e.g. 49.99 (got "1e3")',
    );
    expect(messageOf(() => parseFiatAmount('1.234'))).toBe('amount has more than 2 decimals; round it to cents, e.g. 49.99');
    expect(messageOf(() => parseFiatAmount('0.00'))).toBe('amount must be greater than 0');
    expect(messageOf(() => parseFiatAmount('1000000.01'))).toBe('amount must be at most 1000000');
  });

  it('quotes at most 40 characters of what it refuses', () => {
    const forty = '9'.repeat(39) + 'x';
    expect(messageOf(() => parseUsdc(forty))).toBe(`"${forty}" is not a USDC amount with at most 6 decimals`);
    expect(messageOf(() => parseUsdc(`${forty}y`))).toBe(`"${forty}…" is not a USDC amount with at most 6 decimals`);
  });

  it('parseRate says why a rate is refused, and reads a whole number', () => {
    expect(messageOf(() => parseRate('1e2'))).toBe('"1e2" is not a decimal exchange rate');
    expect(messageOf(() => parseRate('0.000'))).toBe('exchange rate "0.000" must be greater than 0');
    expect(parseRate('83')).toEqual({ numerator: 83n, denominator: 1n });
  });

  it('formats zero and negative amounts', () => {
    expect(formatUsdc(0n)).toBe('0');
    expect(formatUsdc(-1_500_000n)).toBe('-1.5');
  });
});
