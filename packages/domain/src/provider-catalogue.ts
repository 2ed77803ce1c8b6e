import { GatewayError } from './errors';
import type { CurrencyCode } from './currencies';
import { convertUsdMinorUnits, formatMinorUnits, parseFiatAmount, type ExactRate, type FiatAmount } from './money';

export interface ProviderEntry {
  /** The token sent on the wire (`provider=`), lower case. */
  readonly id: string;
  readonly displayName: string;
  /** `any`, or the only currency the provider's checkout takes. */
  readonly currency: 'any' | CurrencyCode;
  /** Smallest order the provider accepts, in `minimumCurrency`. */
  readonly minimum: string;
  readonly minimumCurrency: CurrencyCode;
}

const entry = (
  id: string,
  displayName: string,
  currency: 'any' | CurrencyCode,
  minimum: string,
  minimumCurrency: CurrencyCode = currency === 'any' ? 'USD' : currency,
): ProviderEntry => ({ id, displayName, currency, minimum, minimumCurrency });

/** The on-ramp providers, in the order of the specification's table (provider_01 … provider_20). */
export const PROVIDER_CATALOGUE: readonly ProviderEntry[] = [
  entry('wert', 'Wert', 'USD', '1'),
  entry('stripe', 'Stripe', 'USD', '2'),
  entry('robinhood', 'Robinhood', 'USD', '5'),
  entry('transak', 'Transak', 'any', '15'),
  entry('moonpay', 'MoonPay', 'any', '20'),
  entry('rampnetwork', 'Ramp Network', 'USD', '4'),
  entry('guardarian', 'Guardarian', 'any', '20'),
  entry('particle', 'Particle', 'any', '30'),
  entry('coinbase', 'Coinbase', 'any', '2'),
  entry('sardine', 'Sardine', 'any', '30'),
  entry('banxa', 'Banxa', 'any', '20'),
  entry('utorg', 'UTORG', 'any', '50'),
  entry('simplex', 'Simplex', 'any', '50'),
  entry('alchemypay', 'Alchemy Pay', 'any', '5'),
  entry('mercuryo', 'Mercuryo', 'any', '30'),
  entry('topper', 'Topper', 'any', '10'),
  entry('unlimit', 'Unlimit', 'any', '10'),
  entry('transfi', 'TransFi', 'USD', '70'),
  entry('interac', 'Interac', 'CAD', '100'),
  entry('upi', 'UPI', 'INR', '100'),
];

const BY_ID = new Map(PROVIDER_CATALOGUE.map((provider) => [provider.id, provider]));

/**
 * The provider of a `provider=` value, in any ASCII case. Anything but ASCII letters and digits is
 * refused before lower-casing (nothing is trimmed): Unicode case mapping folds other characters
 * into ASCII (the Kelvin sign K lower-cases to k), and a value is one provider id or none.
 */
export function findProvider(input: string, param = 'provider'): ProviderEntry {
  if (!/^[A-Za-z0-9]{1,40}$/.test(input)) {
    throw new GatewayError(
      'invalid_parameter',
      `${param} must be a provider id of ASCII letters and digits, without spaces: one of ${PROVIDER_CATALOGUE.map((p) => p.id).join(', ')}`,
      param,
    );
  }
  const provider = BY_ID.get(input.toLowerCase());
  if (!provider) {
    throw new GatewayError(
      'unsupported_provider',
      `${param} "${input.slice(0, 40)}" is not a provider of this gateway; use one of ${PROVIDER_CATALOGUE.map((p) => p.id).join(', ')}`,
      param,
    );
  }
  return provider;
}

/** Units of each currency per 1 USD, used to compare amounts with USD minimums. */
export type RateTable = ReadonlyMap<CurrencyCode, ExactRate>;

/**
 * Checks that the provider takes this currency and that the amount reaches its minimum. For a
 * provider that takes any currency, the USD minimum is converted with the configured rate and
 * rounded up, so a customer is never sent to a checkout that would refuse the order.
 */
export function checkProviderOrder(provider: ProviderEntry, amount: FiatAmount, currency: CurrencyCode, rates: RateTable): void {
  if (provider.currency !== 'any' && provider.currency !== currency) {
    throw new GatewayError(
      'currency_not_allowed_for_provider',
      `${provider.id} accepts ${provider.currency} only; send currency=${provider.currency} or choose another provider`,
      'currency',
    );
  }
  const minimum = providerMinimum(provider, currency, rates);
  if (amount.minorUnits < minimum) {
    throw new GatewayError(
      'amount_below_minimum',
      `amount ${amount.text} ${currency} is below ${provider.id}'s minimum of ${formatMinorUnits(minimum)} ${currency}; raise the amount or choose another provider`,
      'amount',
    );
  }
}

/**
 * The provider's minimum in `currency` minor units: as listed when the minimum is in that
 * currency, else the USD minimum converted with the rate table and rounded up.
 */
export function providerMinimum(provider: ProviderEntry, currency: CurrencyCode, rates: RateTable): bigint {
  const minimumInOwnCurrency = parseFiatAmount(provider.minimum).minorUnits;
  if (provider.minimumCurrency === currency) return minimumInOwnCurrency;
  if (provider.minimumCurrency !== 'USD') throw new Error(`${provider.id}'s minimum is in ${provider.minimumCurrency}, which has no rate to ${currency}`);
  const rate = rates.get(currency);
  if (!rate) {
    throw new GatewayError(
      'unsupported_currency',
      `currency ${currency} has no exchange rate configured on this gateway; pay in USD or ask the operator to add a rate`,
      'currency',
    );
  }
  return convertUsdMinorUnits(minimumInOwnCurrency, rate);
}
