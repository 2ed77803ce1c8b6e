import { parseCurrency } from '../src/currencies';

describe('parseCurrency', () => {
  it('takes the supported ISO 4217 codes in any ASCII case', () => {
    expect(parseCurrency('USD')).toBe('USD');
    expect(parseCurrency('usd')).toBe('USD');
    expect(parseCurrency('eUr')).toBe('EUR');
  });
  it.each([
    ['a dotless ı (upper-cases to I: "ınr" would be INR)', '\u0131nr'],
    ['a long s (upper-cases to S: "uſd" would be USD)', 'u\u017fd'],
    ['full-width letters', '\uff35\uff33\uff24'],
    ['a trailing line feed', 'USD\n'],
    ['a leading space', ' USD'],
    ['a NUL', 'US\u0000D'],
    ['a no-break space', 'USD\u00a0'],
  ])('refuses %s with a 400 naming the parameter', (_name, input) => {
    expect(() => parseCurrency(input)).toThrow(expect.objectContaining({ code: 'invalid_parameter', param: 'currency' }));
    expect(() => parseCurrency(input, 'from')).toThrow(expect.objectContaining({ param: 'from' }));
  });
  it('refuses well-formed codes it does not support, listing the supported ones', () => {
    expect(() => parseCurrency('xyz')).toThrow(
      expect.objectContaining({
        code: 'unsupported_currency',
        param: 'currency',
        message:
          'currency XYZ is not supported; use one of USD, EUR, GBP, CAD, AUD, NZD, CHF, SEK, NOK, DKK, PLN, CZK, INR, BRL, MXN, SGD, ' +
          'HKD, ZAR, TRY, AED',
      }),
    );
  });
  it('says what a code looks like', () => {
    expect(() => parseCurrency('US', 'from')).toThrow(
      expect.objectContaining({ message: 'from must be a three-letter ISO 4217 code such as USD, EUR or CAD' }),
    );
  });
});
