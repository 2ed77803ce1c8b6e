import { SUPPORTED_CURRENCIES } from '../src/currencies';
import { GatewayError } from '../src/errors';
import { parseFiatAmount, parseRate } from '../src/money';
import { checkProviderOrder, type RateTable } from '../src/provider-terms';
import { SAMPLE_PROVIDERS } from './support/sample-providers';
import { providerOptions, type ProviderOption } from '../src/provider-options';

const rates: RateTable = new Map([
  ['EUR', parseRate('0.92')],
  ['CAD', parseRate('1.37')],
  ['INR', parseRate('83.1')],
  ['GBP', parseRate('0.79')],
]);

const byId = (options: ProviderOption[]) => new Map(options.map((option) => [option.provider.id, option]));
const summary = (option: ProviderOption | undefined) => {
  if (!option) return 'absent';
  if (option.status === 'available') return `${option.charge.amount.text} ${option.charge.currency}`;
  return `${option.status}: ${option.reason}`;
};

describe('providerOptions: which provider the hosted checkout offers', () => {
  it('USD order: every USD and any-currency provider, minimums in USD, no Interac or UPI', () => {
    const options = byId(providerOptions(parseFiatAmount('25'), 'USD', rates, SAMPLE_PROVIDERS));
    expect(options.has('interac')).toBe(false);
    expect(options.has('upi')).toBe(false);
    expect(options.size).toBe(18);
    expect(summary(options.get('wert'))).toBe('25.00 USD');
    expect(summary(options.get('moonpay'))).toBe('25.00 USD');
    expect(summary(options.get('sardine'))).toBe('unavailable: Minimum 30.00 USD');
    expect(summary(options.get('transfi'))).toBe('unavailable: Minimum 70.00 USD');
    const wert = options.get('wert');
    expect(wert?.status === 'available' && !wert.converted).toBe(true);
  });

  it('EUR order: USD-only providers charge the amount converted to USD, rounded up to the cent', () => {
    const list = providerOptions(parseFiatAmount('49.99'), 'EUR', rates, SAMPLE_PROVIDERS);
    const options = byId(list);
    // 49.99 / 0.92 = 54.3369… → 54.34 (never short of the order)
    expect(summary(options.get('wert'))).toBe('54.34 USD');
    expect(summary(options.get('stripe'))).toBe('54.34 USD');
    const wert = options.get('wert');
    expect(wert?.status === 'available' && wert.converted).toBe(true);
    // Any-currency providers charge EUR; their USD minimum is converted to EUR and rounded up.
    expect(summary(options.get('moonpay'))).toBe('49.99 EUR');
    expect(summary(options.get('simplex'))).toBe('49.99 EUR');
    // 50 USD × 0.92 = 46.00 EUR
    expect(summary(byId(providerOptions(parseFiatAmount('45.99'), 'EUR', rates, SAMPLE_PROVIDERS)).get('simplex'))).toBe(
      'unavailable: Minimum 46.00 EUR',
    );
    // TransFi's 70 USD minimum, compared with the converted amount.
    expect(summary(options.get('transfi'))).toBe('unavailable: Minimum 70.00 USD');
    expect(options.has('interac')).toBe(false);
    expect(list.map((option) => option.provider.id)).toEqual(
      SAMPLE_PROVIDERS.filter((p) => p.currency === 'any' || p.currency === 'USD').map((p) => p.id),
    );
  });

  it('rounds a conversion up exactly, also when it falls on the cent', () => {
    // 9.20 EUR / 0.92 = 10.00 exactly; 9.21 / 0.92 = 10.0108… → 10.02
    expect(summary(byId(providerOptions(parseFiatAmount('9.20'), 'EUR', rates, SAMPLE_PROVIDERS)).get('wert'))).toBe('10.00 USD');
    expect(summary(byId(providerOptions(parseFiatAmount('9.21'), 'EUR', rates, SAMPLE_PROVIDERS)).get('wert'))).toBe('10.02 USD');
    // 0.01 INR / 83.1 → 0.0001… USD → 0.01 USD, then under Wert's minimum of 1 USD.
    expect(summary(byId(providerOptions(parseFiatAmount('0.01'), 'INR', rates, SAMPLE_PROVIDERS)).get('wert'))).toBe(
      'unavailable: Minimum 1.00 USD',
    );
  });

  it('CAD order: Interac appears, charging CAD with its own minimum', () => {
    const low = byId(providerOptions(parseFiatAmount('99.99'), 'CAD', rates, SAMPLE_PROVIDERS));
    expect(summary(low.get('interac'))).toBe('unavailable: Minimum 100.00 CAD');
    const options = byId(providerOptions(parseFiatAmount('150'), 'CAD', rates, SAMPLE_PROVIDERS));
    expect(summary(options.get('interac'))).toBe('150.00 CAD');
    expect(options.has('upi')).toBe(false);
    // 150 / 1.37 = 109.4890… → 109.49
    expect(summary(options.get('transfi'))).toBe('109.49 USD');
    expect(summary(options.get('moonpay'))).toBe('150.00 CAD');
  });

  it('INR order: UPI appears, Interac does not', () => {
    const options = byId(providerOptions(parseFiatAmount('2500'), 'INR', rates, SAMPLE_PROVIDERS));
    expect(summary(options.get('upi'))).toBe('2500.00 INR');
    expect(options.has('interac')).toBe(false);
    // Coinbase takes USD, CAD, GBP and EUR only: left out, as Process Payment would refuse it.
    expect(options.has('coinbase')).toBe(false);
    expect(byId(providerOptions(parseFiatAmount('150'), 'CAD', rates, SAMPLE_PROVIDERS)).has('coinbase')).toBe(true);
    // 2500 / 83.1 = 30.0842… → 30.09
    expect(summary(options.get('wert'))).toBe('30.09 USD');
    // 20 USD × 83.1 = 1662 INR
    expect(summary(options.get('moonpay'))).toBe('2500.00 INR');
    expect(summary(options.get('simplex'))).toBe('unavailable: Minimum 4155.00 INR');
    expect(summary(byId(providerOptions(parseFiatAmount('99'), 'INR', rates, SAMPLE_PROVIDERS)).get('upi'))).toBe(
      'unavailable: Minimum 100.00 INR',
    );
  });

  it('without rates: what needs no rate is offered, USD-only providers withheld, any-currency ones unavailable', () => {
    const options = byId(providerOptions(parseFiatAmount('49.99'), 'EUR', undefined, SAMPLE_PROVIDERS));
    expect(options.get('wert')).toMatchObject({ status: 'withheld', reason: expect.stringMatching(/USD only.*no exchange rate/) });
    expect(summary(options.get('moonpay'))).toBe('unavailable: Exchange rate unavailable right now');
    expect([...options.values()].some((option) => option.status === 'available')).toBe(false);
    // CAD-only Interac has its minimum in CAD: no rate needed.
    const cad = byId(providerOptions(parseFiatAmount('150'), 'CAD', undefined, SAMPLE_PROVIDERS));
    expect(summary(cad.get('interac'))).toBe('150.00 CAD');
    expect(summary(byId(providerOptions(parseFiatAmount('99'), 'CAD', undefined, SAMPLE_PROVIDERS)).get('interac'))).toBe(
      'unavailable: Minimum 100.00 CAD',
    );
    expect(summary(byId(providerOptions(parseFiatAmount('2500'), 'INR', undefined, SAMPLE_PROVIDERS)).get('upi'))).toBe('2500.00 INR');
    // A USD order needs no rate at all.
    const usd = byId(providerOptions(parseFiatAmount('25'), 'USD', undefined, SAMPLE_PROVIDERS));
    expect(summary(usd.get('wert'))).toBe('25.00 USD');
    expect(summary(usd.get('moonpay'))).toBe('25.00 USD');
    expect(summary(usd.get('sardine'))).toBe('unavailable: Minimum 30.00 USD');
  });

  it('a currency missing from the rate table: USD-only withheld, any-currency unavailable', () => {
    const options = byId(providerOptions(parseFiatAmount('100'), 'AED', rates, SAMPLE_PROVIDERS));
    expect(options.get('wert')).toMatchObject({
      status: 'withheld',
      reason: 'Wert takes USD only; no exchange rate for AED is available right now',
    });
    expect(summary(options.get('moonpay'))).toBe('unavailable: No exchange rate for AED right now');
  });

  it('refuses a conversion above the largest amount Process Payment takes', () => {
    const options = byId(providerOptions(parseFiatAmount('1000000'), 'GBP', rates, SAMPLE_PROVIDERS));
    expect(summary(options.get('wert'))).toBe('unavailable: Maximum 1000000.00 USD');
    // 920000.00 EUR at 0.92 is the maximum exactly; a cent more rounds up past it.
    expect(summary(byId(providerOptions(parseFiatAmount('920000'), 'EUR', rates, SAMPLE_PROVIDERS)).get('wert'))).toBe('1000000.00 USD');
    expect(summary(byId(providerOptions(parseFiatAmount('920000.01'), 'EUR', rates, SAMPLE_PROVIDERS)).get('wert'))).toBe(
      'unavailable: Maximum 1000000.00 USD',
    );
  });

  it('offers exactly what Process Payment accepts, for every currency and a spread of amounts', () => {
    const amounts = [
      '0.01',
      '1',
      '4.99',
      '13.79',
      '13.80',
      '18.40',
      '27.59',
      '27.60',
      '45.99',
      '46',
      '99.99',
      '100',
      '1661.99',
      '1662',
      '5000',
    ];
    for (const currency of SUPPORTED_CURRENCIES) {
      for (const text of amounts) {
        const amount = parseFiatAmount(text);
        for (const option of providerOptions(amount, currency, rates, SAMPLE_PROVIDERS)) {
          const charge = option.status === 'withheld' ? undefined : option.charge;
          if (option.status === 'available') {
            expect(() => checkProviderOrder(option.provider, option.charge.amount, option.charge.currency, rates)).not.toThrow();
          } else if (charge) {
            expect(() => checkProviderOrder(option.provider, charge.amount, charge.currency, rates)).toThrow(GatewayError);
          }
        }
      }
    }
  });
});
