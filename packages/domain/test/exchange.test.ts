import {
  convertAmountToUsd,
  formatSignificant,
  parseConvertValue,
  parseRate,
  parseRateText,
  ratioOfRates,
  UNIT_RATE,
  usdPerUnit,
} from '../src';

describe('parseConvertValue', () => {
  it('takes plugin amounts exactly: WooCommerce floats, WHMCS strings, PHP float tails', () => {
    expect(parseConvertValue('49.9')).toMatchObject({ numerator: 499n, denominator: 10n });
    expect(parseConvertValue('150')).toMatchObject({ numerator: 150n, denominator: 1n });
    expect(parseConvertValue('2500.00')).toMatchObject({ numerator: 250000n, denominator: 100n });
    expect(parseConvertValue('33.333333333333336')).toMatchObject({ numerator: 33333333333333336n, denominator: 10n ** 15n });
    expect(parseConvertValue('0.000000000000000001')).toMatchObject({ numerator: 1n, denominator: 10n ** 18n });
  });

  it.each([
    '',
    '0',
    '0.00',
    '-5',
    '+5',
    '1e3',
    '1E3',
    'abc',
    'NaN',
    '1,5',
    '1 000',
    ' 5',
    '5.',
    '.5',
    '0x10',
    '1.0000000000000000001',
    '1234567890123456',
  ])('refuses %j with a message naming value', (input) => {
    expect(() => parseConvertValue(input)).toThrow(expect.objectContaining({ code: 'invalid_parameter', param: 'value' }));
  });
});

describe('convertAmountToUsd', () => {
  const eur = parseRate('0.92'); // EUR per USD

  it('rounds UP to the cent, so value_coin is never short of the order', () => {
    // 49.9 / 0.92 = 54.2391… → 54.24
    expect(convertAmountToUsd(parseConvertValue('49.9'), eur).valueCoin).toBe('54.24');
    // 92 / 0.92 = 100 exactly: exact stays exact
    expect(convertAmountToUsd(parseConvertValue('92'), eur).valueCoin).toBe('100.00');
    // 0.000001 EUR is still worth a cent
    expect(convertAmountToUsd(parseConvertValue('0.000001'), eur).valueCoin).toBe('0.01');
    expect(convertAmountToUsd(parseConvertValue('150'), UNIT_RATE)).toEqual({ usdCents: 15000n, valueCoin: '150.00' });
    // 10.001 USD is 1000.1 cents → 10.01
    expect(convertAmountToUsd(parseConvertValue('10.001'), UNIT_RATE).valueCoin).toBe('10.01');
  });

  it('refuses an amount worth more than Process Payment takes', () => {
    expect(convertAmountToUsd(parseConvertValue('1000000'), UNIT_RATE).valueCoin).toBe('1000000.00');
    expect(() => convertAmountToUsd(parseConvertValue('1000000.001'), UNIT_RATE)).toThrow(expect.objectContaining({ param: 'value' }));
  });
});

describe('rates as exact fractions', () => {
  it('crosses two rates against a common base and inverts one', () => {
    // ECB: CAD 1.5664 and USD 1.0890 per EUR → 712/495 CAD per USD; EUR per USD 1000/1089.
    expect(ratioOfRates(parseRate('1.5664'), parseRate('1.0890'))).toEqual({ numerator: 712n, denominator: 495n });
    expect(ratioOfRates(UNIT_RATE, parseRate('1.0890'))).toEqual({ numerator: 1000n, denominator: 1089n });
    expect(usdPerUnit(parseRate('0.92'))).toEqual({ numerator: 25n, denominator: 23n });
  });

  it('reads a JSON number text, exponents included, exactly', () => {
    expect(parseRateText('0.919077')).toEqual({ numerator: 919077n, denominator: 1000000n });
    expect(parseRateText('1.2345e-5')).toEqual({ numerator: 2469n, denominator: 200000000n });
    expect(parseRateText('1.5E+3')).toEqual({ numerator: 1500n, denominator: 1n });
    for (const bad of ['0', '-1', 'NaN', '1.', '', '1e1000']) expect(() => parseRateText(bad)).toThrow();
  });

  it('formats a rate to 10 significant digits, half up, trailing zeros trimmed', () => {
    expect(formatSignificant(usdPerUnit(parseRate('0.92')))).toBe('1.086956522'); // 1.08695652173…
    expect(formatSignificant(usdPerUnit(parseRate('83.1')))).toBe('0.01203369434'); // 0.012033694344…
    expect(formatSignificant(usdPerUnit(parseRate('1.37')))).toBe('0.7299270073'); // 0.72992700729…
    expect(formatSignificant(UNIT_RATE)).toBe('1');
    expect(formatSignificant(usdPerUnit(parseRate('0.8')))).toBe('1.25');
    expect(formatSignificant({ numerator: 99999999999n, denominator: 10000000000n })).toBe('10'); // 9.9999999999 carries
    expect(formatSignificant({ numerator: 123456789012345n, denominator: 1n })).toBe('123456789012345');
  });
});
