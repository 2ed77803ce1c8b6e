import {
  convertAmountToUsd,
  formatSignificant,
  GatewayError,
  parseConvertValue,
  parseRate,
  parseRateText,
  ratioOfRates,
  reduceRate,
  UNIT_RATE,
  usdPerUnit,
} from '../src';

const invalidParameter = (param: string, message: string) => ({ code: 'invalid_parameter', param, message });

/** The thrown error, for asserting its code, param and exact message together. */
function thrown(fn: () => unknown): GatewayError | Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('parseConvertValue: exact rules and messages', () => {
  it('explains a refused value, quoting it, under the parameter it was given as', () => {
    expect(thrown(() => parseConvertValue('1e3'))).toMatchObject(
      invalidParameter(
        'value',
        'value must be a plain positive decimal with a dot, e.g. 49.99 or 150 (no sign, exponent, comma or spaces; got "1e3")',
      ),
    );
    expect(thrown(() => parseConvertValue('abc', 'amount'))).toMatchObject(
      invalidParameter(
        'amount',
        'amount must be a plain positive decimal with a dot, e.g. 49.99 or 150 (no sign, exponent, comma or spaces; got "abc")',
      ),
    );
  });

  it('quotes at most 40 characters of a refused value', () => {
    const forty = 'x'.repeat(40);
    expect(thrown(() => parseConvertValue(forty)).message).toContain(`got "${forty}")`);
    expect(thrown(() => parseConvertValue(`${forty}yz`)).message).toContain(`got "${forty}…")`);
  });

  it('refuses text before or after the number (the whole input must be the decimal)', () => {
    for (const bad of ['a5', '5a', '5.5a', 'x1.5', '1.5 ', '1.2.3', '1.a']) {
      expect(() => parseConvertValue(bad)).toThrow(expect.objectContaining({ code: 'invalid_parameter', param: 'value' }));
    }
  });

  it('takes up to 15 integer digits and multi-digit fractions', () => {
    expect(parseConvertValue('123456789012345')).toMatchObject({ numerator: 123456789012345n, denominator: 1n, text: '123456789012345' });
    expect(parseConvertValue('12.345')).toEqual({ numerator: 12345n, denominator: 1000n, text: '12.345' });
    expect(parseConvertValue('1.000000000000000001')).toMatchObject({ numerator: 1000000000000000001n, denominator: 10n ** 18n });
  });

  it('names the 18-decimal limit, and refuses zero with its own message', () => {
    expect(thrown(() => parseConvertValue('0.0000000000000000001'))).toMatchObject(
      invalidParameter('value', 'value has more than 18 decimals'),
    );
    expect(thrown(() => parseConvertValue('0.0000000000000000001', 'amount'))).toMatchObject({
      param: 'amount',
      message: 'amount has more than 18 decimals',
    });
    expect(thrown(() => parseConvertValue('0.000'))).toMatchObject(invalidParameter('value', 'value must be greater than 0'));
    expect(thrown(() => parseConvertValue('0', 'amount'))).toMatchObject({ param: 'amount', message: 'amount must be greater than 0' });
  });
});

describe('convertAmountToUsd: rounding up and the upper limit', () => {
  it('rounds any fraction of a cent up, and an exact cent not at all', () => {
    // 1 EUR at 0.92 EUR per USD = 1.0869… USD → 1.09
    expect(convertAmountToUsd(parseConvertValue('1'), parseRate('0.92'))).toEqual({ usdCents: 109n, valueCoin: '1.09' });
    // 10.0000000000000001 USD is a hair over 1000 cents → 10.01
    expect(convertAmountToUsd(parseConvertValue('10.0000000000000001'), UNIT_RATE).usdCents).toBe(1001n);
    expect(convertAmountToUsd(parseConvertValue('10.01'), UNIT_RATE).usdCents).toBe(1001n);
    // 2 units at 2/1 per USD is exactly 1 USD
    expect(convertAmountToUsd(parseConvertValue('2'), { numerator: 2n, denominator: 1n }).valueCoin).toBe('1.00');
    // 1 unit at 1/3 per USD (a rate with a denominator) is exactly 3 USD
    expect(convertAmountToUsd(parseConvertValue('1'), { numerator: 1n, denominator: 3n }).valueCoin).toBe('3.00');
  });

  it('refuses an amount worth more than 1 000 000 USD, naming the limit and the parameter', () => {
    expect(convertAmountToUsd(parseConvertValue('920000'), parseRate('0.92')).valueCoin).toBe('1000000.00');
    expect(thrown(() => convertAmountToUsd(parseConvertValue('1000000.01'), UNIT_RATE))).toMatchObject(
      invalidParameter('value', 'value is worth more than 1000000 USD, the largest amount Process Payment accepts'),
    );
    expect(thrown(() => convertAmountToUsd(parseConvertValue('920000.01'), parseRate('0.92'), 'amount'))).toMatchObject({
      param: 'amount',
      message: 'amount is worth more than 1000000 USD, the largest amount Process Payment accepts',
    });
  });
});

describe('exact rate fractions', () => {
  it.each([
    { numerator: 0n, denominator: 1n },
    { numerator: 1n, denominator: 0n },
    { numerator: -1n, denominator: 1n },
    { numerator: 1n, denominator: -1n },
  ])('refuses the non-positive rate %p as an internal error', (rate) => {
    const message = `exchange rate ${rate.numerator}/${rate.denominator} is not positive`;
    for (const fn of [
      () => reduceRate(rate),
      () => ratioOfRates(rate, UNIT_RATE),
      () => ratioOfRates(UNIT_RATE, rate),
      () => formatSignificant(rate),
    ]) {
      const error = thrown(fn);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ code: 'internal_error', message });
    }
  });

  it('reduces fractions to lowest terms', () => {
    expect(reduceRate({ numerator: 12n, denominator: 18n })).toEqual({ numerator: 2n, denominator: 3n });
    expect(reduceRate({ numerator: 7n, denominator: 5n })).toEqual({ numerator: 7n, denominator: 5n });
    expect(usdPerUnit({ numerator: 50n, denominator: 10n })).toEqual({ numerator: 1n, denominator: 5n });
  });
});

describe('parseRateText: exact rules and messages', () => {
  it('takes every form of a JSON number, exactly', () => {
    expect(parseRateText('12.25')).toEqual({ numerator: 49n, denominator: 4n });
    expect(parseRateText('150')).toEqual({ numerator: 150n, denominator: 1n });
    expect(parseRateText('15e2')).toEqual({ numerator: 1500n, denominator: 1n });
    expect(parseRateText('15E-2')).toEqual({ numerator: 3n, denominator: 20n });
    expect(parseRateText('2e+1')).toEqual({ numerator: 20n, denominator: 1n });
    expect(parseRateText('1.5e0')).toEqual({ numerator: 3n, denominator: 2n });
    expect(parseRateText('1e100')).toEqual({ numerator: 10n ** 100n, denominator: 1n });
    expect(parseRateText('1e-100')).toEqual({ numerator: 1n, denominator: 10n ** 100n });
  });

  it('refuses anything else, quoting at most 40 characters of it', () => {
    for (const bad of ['x1.5', '1.5x', '1.5e', 'e5', '1e5x', '1e--5', '1e+-5', '1.5e1.5', '.5', ' 1', 'a', '1ee5']) {
      expect(() => parseRateText(bad)).toThrow(`"${bad}" is not a decimal exchange rate`);
    }
    const forty = '9'.repeat(39) + 'x';
    expect(() => parseRateText(forty)).toThrow(`"${forty}" is not a decimal exchange rate`);
    expect(() => parseRateText(`${forty}1`)).toThrow(`"${forty}…" is not a decimal exchange rate`);
  });

  it('refuses zero in any form, saying it must be positive', () => {
    for (const zero of ['0', '0.000', '0e5', '0.0E-3']) {
      expect(() => parseRateText(zero)).toThrow(`exchange rate "${zero}" must be greater than 0`);
    }
  });
});

describe('formatSignificant: digits, rounding and arguments', () => {
  it('rounds half up at the last significant digit', () => {
    expect(formatSignificant({ numerator: 1n, denominator: 8n }, 2)).toBe('0.13'); // 0.125
    expect(formatSignificant({ numerator: 1249n, denominator: 10000n }, 2)).toBe('0.12'); // 0.1249
    expect(formatSignificant({ numerator: 25n, denominator: 2n }, 2)).toBe('13'); // 12.5
    expect(formatSignificant({ numerator: 249n, denominator: 20n }, 2)).toBe('12'); // 12.45
  });

  it('counts significant digits after leading zeros, and before the point', () => {
    expect(formatSignificant({ numerator: 1n, denominator: 3n }, 1)).toBe('0.3');
    expect(formatSignificant({ numerator: 1n, denominator: 3000n }, 3)).toBe('0.000333');
    expect(formatSignificant({ numerator: 2n, denominator: 3n }, 3)).toBe('0.667');
    expect(formatSignificant({ numerator: 1n, denominator: 10n }, 3)).toBe('0.1');
    expect(formatSignificant({ numerator: 1000n, denominator: 3n }, 5)).toBe('333.33');
    expect(formatSignificant({ numerator: 1000n, denominator: 3n }, 3)).toBe('333');
    expect(formatSignificant({ numerator: 1000n, denominator: 3n }, 2)).toBe('333'); // never rounds the integer part away
  });

  it('refuses a significant-digit count that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => formatSignificant(UNIT_RATE, bad)).toThrow(new RangeError('significantDigits must be a positive integer'));
    }
    expect(formatSignificant(usdPerUnit(parseRate('0.92')), 1)).toBe('1');
  });
});
