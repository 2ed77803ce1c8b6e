import { PROVIDER_CATALOGUE, checkProviderOrder, findProvider, type RateTable } from '../src/provider-catalogue';
import { parseFiatAmount, parseRate } from '../src/money';

const rates: RateTable = new Map([
  ['EUR', parseRate('0.92')],
  ['CAD', parseRate('1.37')],
  ['INR', parseRate('83.1')],
]);

describe('provider catalogue', () => {
  it('has the twenty providers of the specification in order, with unique lower-case ids', () => {
    expect(PROVIDER_CATALOGUE).toHaveLength(20);
    expect(PROVIDER_CATALOGUE[0]?.id).toBe('wert');
    expect(PROVIDER_CATALOGUE[18]).toMatchObject({ id: 'interac', currency: 'CAD', minimum: '100' });
    expect(PROVIDER_CATALOGUE[19]).toMatchObject({ id: 'upi', currency: 'INR' });
    expect(new Set(PROVIDER_CATALOGUE.map((p) => p.id)).size).toBe(20);
    for (const p of PROVIDER_CATALOGUE) expect(p.id).toBe(p.id.toLowerCase());
  });
  it('finds providers case-insensitively and refuses unknown ones', () => {
    expect(findProvider('MoonPay').id).toBe('moonpay');
    expect(() => findProvider('paypal')).toThrow(/not a provider/);
  });
  it.each([
    ['a trailing line feed', 'moonpay\n'],
    ['a leading space', ' moonpay'],
    ['a NUL', 'moonpay\u0000'],
    ['the Kelvin sign (lower-cases to k)', 'transa\u212a'],
    ['a dotted capital I (lower-cases to i + a dot)', 'Unl\u0130mit'],
    ['a no-break space', 'moonpay\u00a0'],
  ])('refuses %s instead of folding it into a provider id', (_name, input) => {
    expect(() => findProvider(input)).toThrow(expect.objectContaining({ param: 'provider', statusCode: 400 }));
  });
  it('enforces currency restrictions', () => {
    expect(() => checkProviderOrder(findProvider('wert'), parseFiatAmount('10'), 'EUR', rates)).toThrow(/USD only/);
    expect(() => checkProviderOrder(findProvider('interac'), parseFiatAmount('150'), 'USD', rates)).toThrow(/CAD only/);
    expect(() => checkProviderOrder(findProvider('upi'), parseFiatAmount('150'), 'INR', rates)).not.toThrow();
  });
  it('compares minimums in the provider currency, converting USD minimums with the rate table', () => {
    expect(() => checkProviderOrder(findProvider('interac'), parseFiatAmount('99.99'), 'CAD', rates)).toThrow(/minimum of 100.00 CAD/);
    expect(() => checkProviderOrder(findProvider('transak'), parseFiatAmount('13.80'), 'EUR', rates)).not.toThrow();
    expect(() => checkProviderOrder(findProvider('transak'), parseFiatAmount('13.79'), 'EUR', rates)).toThrow(/13.80 EUR/);
    expect(() => checkProviderOrder(findProvider('transak'), parseFiatAmount('14.99'), 'USD', rates)).toThrow(/15.00 USD/);
    expect(() => checkProviderOrder(findProvider('transak'), parseFiatAmount('100'), 'GBP', rates)).toThrow(/no exchange rate/);
  });
});
