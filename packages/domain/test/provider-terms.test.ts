import {
  checkProviderOrder,
  methodsFor,
  parseCountryCode,
  providerMinimum,
  resolveProvider,
  servesCountry,
  type RateTable,
} from '../src/provider-terms';
import { parseFiatAmount, parseRate } from '../src/money';
import { SAMPLE_PROVIDERS, sampleCatalogue } from './support/sample-providers';

const rates: RateTable = new Map([
  ['EUR', parseRate('0.92')],
  ['CAD', parseRate('1.37')],
  ['INR', parseRate('83.1')],
]);

const catalogue = sampleCatalogue();
const find = (id: string) => resolveProvider(id, catalogue);

describe('resolveProvider', () => {
  it('finds offered providers case-insensitively', () => {
    expect(find('MoonPay').id).toBe('moonpay');
  });

  it('answers an id the gateway knows but does not offer with provider_not_offered and the reason', () => {
    expect(() => find('paypal')).toThrow(expect.objectContaining({ code: 'provider_not_offered', param: 'provider', statusCode: 400 }));
    expect(() => find('PayPal')).toThrow(/PayPal is not offered by this gateway \(not integrated\)/);
    const withoutMoonpay = sampleCatalogue(SAMPLE_PROVIDERS.filter((p) => p.id !== 'moonpay'));
    expect(() => resolveProvider('moonpay', withoutMoonpay)).toThrow(
      expect.objectContaining({
        code: 'provider_not_offered',
        message: expect.stringMatching(/MoonPay is not offered by this gateway \(not configured\)/),
      }),
    );
  });

  it('answers an id nobody knows with unsupported_provider, listing what is offered', () => {
    expect(() => find('moonpayy')).toThrow(
      expect.objectContaining({
        code: 'unsupported_provider',
        message: expect.stringMatching(/not a provider id this gateway knows; use one of wert, stripe/),
      }),
    );
    expect(() => resolveProvider('moonpay', sampleCatalogue([]))).toThrow(/none \(the operator has configured no provider\)/);
  });

  it.each([
    ['a trailing line feed', 'moonpay\n'],
    ['a leading space', ' moonpay'],
    ['a NUL', 'moonpay\u0000'],
    ['the Kelvin sign (lower-cases to k)', 'transa\u212a'],
    ['a dotted capital I (lower-cases to i + a dot)', 'Unl\u0130mit'],
    ['a no-break space', 'moonpay\u00a0'],
  ])('refuses %s instead of folding it into a provider id', (_name, input) => {
    expect(() => find(input)).toThrow(expect.objectContaining({ code: 'invalid_parameter', param: 'provider', statusCode: 400 }));
  });

  it('says what a provider id looks like, listing the offered ones', () => {
    expect(() => resolveProvider('moon pay', sampleCatalogue(SAMPLE_PROVIDERS.slice(0, 2)), 'via')).toThrow(
      expect.objectContaining({
        param: 'via',
        message: 'via must be a provider id of ASCII letters and digits, without spaces: one of wert, stripe',
      }),
    );
  });
});

describe('checkProviderOrder', () => {
  it('enforces currency restrictions', () => {
    expect(() => checkProviderOrder(find('wert'), parseFiatAmount('10'), 'EUR', rates)).toThrow(/USD only/);
    expect(() => checkProviderOrder(find('interac'), parseFiatAmount('150'), 'USD', rates)).toThrow(/CAD only/);
    expect(() => checkProviderOrder(find('upi'), parseFiatAmount('150'), 'INR', rates)).not.toThrow();
  });
  it('a provider that takes a few currencies refuses the others, naming them', () => {
    expect(() => checkProviderOrder(find('coinbase'), parseFiatAmount('5000'), 'INR', rates)).toThrow(
      expect.objectContaining({
        code: 'currency_not_allowed_for_provider',
        param: 'currency',
        message: 'coinbase accepts USD, CAD, GBP or EUR only; send one of those currencies or choose another provider',
      }),
    );
    expect(() => checkProviderOrder(find('coinbase'), parseFiatAmount('10'), 'EUR', rates)).not.toThrow();
    expect(() => checkProviderOrder(find('coinbase'), parseFiatAmount('10'), 'USD', rates)).not.toThrow();
  });
  it('compares minimums in the provider currency, converting USD minimums with the rate table', () => {
    expect(() => checkProviderOrder(find('interac'), parseFiatAmount('99.99'), 'CAD', rates)).toThrow(/minimum of 100.00 CAD/);
    expect(() => checkProviderOrder(find('transak'), parseFiatAmount('13.80'), 'EUR', rates)).not.toThrow();
    expect(() => checkProviderOrder(find('transak'), parseFiatAmount('13.79'), 'EUR', rates)).toThrow(/13.80 EUR/);
    expect(() => checkProviderOrder(find('transak'), parseFiatAmount('14.99'), 'USD', rates)).toThrow(/15.00 USD/);
    expect(() => checkProviderOrder(find('transak'), parseFiatAmount('100'), 'GBP', rates)).toThrow(/no exchange rate/);
  });
  it("names the parameter to fix: currency for the provider's currency or a missing rate, amount for the minimum", () => {
    expect(() => checkProviderOrder(find('wert'), parseFiatAmount('10'), 'EUR', rates)).toThrow(
      expect.objectContaining({ code: 'currency_not_allowed_for_provider', param: 'currency' }),
    );
    expect(() => checkProviderOrder(find('transak'), parseFiatAmount('14.99'), 'USD', rates)).toThrow(
      expect.objectContaining({
        code: 'amount_below_minimum',
        param: 'amount',
        message: "amount 14.99 USD is below transak's minimum of 15.00 USD; raise the amount or choose another provider",
      }),
    );
    expect(() => checkProviderOrder(find('transak'), parseFiatAmount('100'), 'GBP', rates)).toThrow(
      expect.objectContaining({ code: 'unsupported_currency', param: 'currency' }),
    );
  });
});

describe('providerMinimum', () => {
  it('converts only a USD minimum: a minimum in another currency has no rate to a third one', () => {
    const interac = find('interac');
    expect(providerMinimum(interac, 'CAD', rates)).toBe(10_000n);
    expect(() => providerMinimum(interac, 'EUR', rates)).toThrow(new Error("interac's minimum is in CAD, which has no rate to EUR"));
    // 15 USD at 0.92 EUR per USD.
    expect(providerMinimum(find('transak'), 'EUR', rates)).toBe(1_380n);
  });
});

describe("a provider's facts for the checkout's choice", () => {
  const PAGE = 'https://provider.example/docs';

  it('reads a customer country in any ASCII case, and refuses anything but two letters naming the parameter', () => {
    expect(parseCountryCode('de')).toBe('DE');
    expect(parseCountryCode('US', 'CUSTOMER_COUNTRY_HEADER')).toBe('US');
    for (const bad of ['', 'D', 'DEU', 'D1', ' de', 'ſt', 'İT']) {
      expect(() => parseCountryCode(bad, 'x-country')).toThrow(expect.objectContaining({ code: 'invalid_parameter', param: 'x-country' }));
    }
  });

  it('tells whether a provider serves a country from an only-list, an except-list, or cannot tell', () => {
    expect(servesCountry({ countries: { only: ['US'], source: PAGE } }, 'US')).toBe('yes');
    expect(servesCountry({ countries: { only: ['US'], source: PAGE } }, 'DE')).toBe('no');
    expect(servesCountry({ countries: { except: ['RU'], source: PAGE } }, 'RU')).toBe('no');
    expect(servesCountry({ countries: { except: ['RU'], source: PAGE } }, 'DE')).toBe('yes');
    expect(servesCountry({ countries: { undocumented: 'no list found' } }, 'DE')).toBe('unknown');
    expect(servesCountry({}, 'DE')).toBe('unknown');
    expect(servesCountry({ countries: { only: ['US'], source: PAGE } }, undefined)).toBe('unknown');
  });

  it("lists a provider's methods for a currency once each, in its order", () => {
    const methods = {
      offered: [
        { method: 'bank_transfer', currencies: ['EUR'] },
        { method: 'card' },
        { method: 'bank_transfer', currencies: ['GBP', 'EUR'] },
      ],
      source: PAGE,
    } as const;
    expect(methodsFor({ methods }, 'EUR')).toEqual(['bank_transfer', 'card']);
    expect(methodsFor({ methods }, 'GBP')).toEqual(['card', 'bank_transfer']);
    expect(methodsFor({ methods }, 'USD')).toEqual(['card']);
    expect(methodsFor({}, 'USD')).toEqual([]);
  });
});
