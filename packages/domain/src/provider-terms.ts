import { GatewayError } from './errors';
import type { CurrencyCode } from './currencies';
import { convertUsdMinorUnits, formatMinorUnits, parseFiatAmount, type ExactRate, type FiatAmount } from './money';
import type { DocumentedFees } from './order-state';

/**
 * What the order rules need to know of an on-ramp provider. Each provider's adapter
 * (packages/providers) declares these in its descriptor; the rules below are the same for all.
 */
export interface ProviderTerms {
  /** The token sent on the wire (`provider=`), lower case. */
  readonly id: string;
  readonly displayName: string;
  /** `any`, or the only currency the provider's checkout takes. */
  readonly currency: 'any' | CurrencyCode;
  /**
   * With `currency: 'any'`, the currencies its checkout takes when not every one (Coinbase honours
   * its preset amount in four): an order in another is refused and the hosted checkout leaves it out.
   */
  readonly currencies?: readonly CurrencyCode[];
  /** Smallest order the provider accepts, in `minimumCurrency`. */
  readonly minimum: string;
  readonly minimumCurrency: CurrencyCode;
  /**
   * What the provider documents it takes from a card purchase, in basis points of the order's
   * value: without a quote, the USDC an order should bring is estimated from it (expectUsdc).
   */
  readonly fees: DocumentedFees;
  /** The payment methods its widget offers a buyer (issue 32's rows say them); absent: not known. */
  readonly methods?: ProviderMethods;
  /** Its usual time from payment to USDC delivered, as documented (or assumed, saying why). */
  readonly timeToUsdc?: DocumentedMinutes;
  /** The countries it serves, as documented; absent or `undocumented`: the gateway cannot tell. */
  readonly countries?: ServedCountries;
  /** Its documented per-purchase limit for a card purchase; absent where it documents none. */
  readonly maximum?: DocumentedAmount;
  /** An amount up to which it documents lighter identity checks; absent where it documents none. */
  readonly lightChecksUpTo?: DocumentedAmount;
  /**
   * Where its checkout can sell a fixed amount of USDC, so the customer can pay the fees on top and
   * the shop receive the order's full value (issue 32, fee-payer.ts): the checkout parameter that
   * fixes it, as its page documents it. Absent: it sells a fiat amount only, fees inside.
   */
  readonly fixedUsdc?: FixedUsdcAmount;
}

/** How a provider's checkout is told the USDC amount to sell: the parameter's documented name and page. */
export interface FixedUsdcAmount {
  /** As the provider names it: `destination_amount` (Stripe), `quoteCurrencyAmount` (MoonPay), `cryptoAmount` (Transak). */
  readonly parameter: string;
  /** The provider's page that documents it (https). */
  readonly source: string;
}

/**
 * The payment methods a customer recognises on a provider's page. Closed on purpose: a view model
 * words each one, so adding one (only for something a provider documents that a customer would
 * recognise) is adding its words too.
 */
export const PAYMENT_METHODS = ['card', 'apple_pay', 'google_pay', 'bank_transfer', 'paypal'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** One method of a provider's widget; `currencies`: only for orders in these (SEPA for EUR), else for any. */
export interface OfferedMethod {
  readonly method: PaymentMethod;
  readonly currencies?: readonly CurrencyCode[];
}

export interface ProviderMethods {
  readonly offered: readonly OfferedMethod[];
  /** The provider's page the methods are read from (https). */
  readonly source: string;
}

/** A duration in minutes read from a provider's page, or assumed where it publishes none. */
export interface DocumentedMinutes {
  readonly minutes: number;
  /** The page it is read from (https); for an assumed figure, the page searched nearest to one. */
  readonly source: string;
  /** Why the figure is assumed (nothing published); absent when the provider documents it. */
  readonly assumed?: string;
}

/** An ISO 3166-1 alpha-2 code, upper case. */
export type CountryCode = string;

/**
 * Where a provider serves customers: only the listed countries, or every one but the listed ones,
 * read from its page; or `undocumented` with what was looked for, when no list was found.
 */
export type ServedCountries =
  | { readonly only: readonly CountryCode[]; readonly source: string }
  | { readonly except: readonly CountryCode[]; readonly source: string }
  | { readonly undocumented: string };

/** An amount a provider documents (a limit), in one currency, with its page. */
export interface DocumentedAmount {
  /** A decimal string, as ProviderTerms.minimum. */
  readonly amount: string;
  readonly currency: CurrencyCode;
  readonly source: string;
}

/**
 * A customer's country as an ISO 3166-1 alpha-2 code, in any ASCII case (from a header a trusted
 * proxy sets). Refused unless it is two ASCII letters: the value only orders the list, so a bad one
 * is a misconfigured proxy, named as such.
 */
export function parseCountryCode(input: string, param = 'country'): CountryCode {
  if (!/^[A-Za-z]{2}$/.test(input)) {
    throw new GatewayError(
      'invalid_parameter',
      `${param} must be an ISO 3166-1 alpha-2 country code of two letters, such as DE or US; got "${input.slice(0, 20)}"`,
      param,
    );
  }
  return input.toUpperCase();
}

/** Whether the provider serves customers of `country`, as far as its documented list says. */
export function servesCountry(provider: Pick<ProviderTerms, 'countries'>, country: CountryCode | undefined): 'yes' | 'no' | 'unknown' {
  const served = provider.countries;
  if (country === undefined || served === undefined || 'undocumented' in served) return 'unknown';
  if ('only' in served) return served.only.includes(country) ? 'yes' : 'no';
  return served.except.includes(country) ? 'no' : 'yes';
}

/** The methods its widget offers for a charge in `currency`, in the provider's order. */
export function methodsFor(provider: Pick<ProviderTerms, 'methods'>, currency: CurrencyCode): PaymentMethod[] {
  const methods = (provider.methods?.offered ?? [])
    .filter((offered) => offered.currencies === undefined || offered.currencies.includes(currency))
    .map((offered) => offered.method);
  return [...new Set(methods)];
}

/**
 * The providers of one gateway as configured at boot: the ones it offers (credentials present, or
 * the sandbox standing in for them on a local stack) and the ids it knows but does not offer.
 */
export interface ProviderCatalogue {
  /** Offered, in the order the hosted checkout lists them. */
  readonly offered: readonly ProviderTerms[];
  /** Any id this gateway knows, offered or not (a payment recorded earlier keeps its provider's name). */
  describe(id: string): ProviderTerms | undefined;
  /** Why a known id is not offered here, in words for the merchant; undefined when it is offered or unknown. */
  notOfferedReason(id: string): string | undefined;
}

/**
 * The provider of a `provider=` value, in any ASCII case. Anything but ASCII letters and digits is
 * refused before lower-casing (nothing is trimmed): Unicode case mapping folds other characters
 * into ASCII (the Kelvin sign K lower-cases to k), and a value is one provider id or none. An id
 * this gateway knows but does not offer gets its own code, so a plugin's provider that the
 * operator has not set up does not read like a typo.
 */
export function resolveProvider(input: string, catalogue: ProviderCatalogue, param = 'provider'): ProviderTerms {
  const offeredIds = (): string => catalogue.offered.map((p) => p.id).join(', ') || 'none (the operator has configured no provider)';
  if (!/^[A-Za-z0-9]{1,40}$/.test(input)) {
    throw new GatewayError(
      'invalid_parameter',
      `${param} must be a provider id of ASCII letters and digits, without spaces: one of ${offeredIds()}`,
      param,
    );
  }
  const id = input.toLowerCase();
  const offered = catalogue.offered.find((provider) => provider.id === id);
  if (offered) return offered;
  const reason = catalogue.notOfferedReason(id);
  if (reason !== undefined) {
    const name = catalogue.describe(id)?.displayName ?? id;
    throw new GatewayError(
      'provider_not_offered',
      `${param} ${id}: ${name} is not offered by this gateway (${reason}); choose another provider: ${offeredIds()}`,
      param,
    );
  }
  throw new GatewayError(
    'unsupported_provider',
    `${param} "${input}" is not a provider id this gateway knows; use one of ${offeredIds()}`,
    param,
  );
}

/** Units of each currency per 1 USD, used to compare amounts with USD minimums. */
export type RateTable = ReadonlyMap<CurrencyCode, ExactRate>;

/**
 * Checks that the provider takes this currency and that the amount reaches its minimum. For a
 * provider that takes any currency, the USD minimum is converted with the configured rate and
 * rounded up, so a customer is never sent to a checkout that would refuse the order.
 */
export function checkProviderOrder(provider: ProviderTerms, amount: FiatAmount, currency: CurrencyCode, rates: RateTable): void {
  if (provider.currency !== 'any' && provider.currency !== currency) {
    throw new GatewayError(
      'currency_not_allowed_for_provider',
      `${provider.id} accepts ${provider.currency} only; send currency=${provider.currency} or choose another provider`,
      'currency',
    );
  }
  if (!takesCurrency(provider, currency)) {
    throw new GatewayError(
      'currency_not_allowed_for_provider',
      `${provider.id} accepts ${provider.currencies?.join(', ').replace(/, (\w+)$/, ' or $1')} only; send one of those currencies or ` +
        'choose another provider',
      'currency',
    );
  }
  const minimum = providerMinimum(provider, currency, rates);
  if (amount.minorUnits < minimum) {
    throw new GatewayError(
      'amount_below_minimum',
      `amount ${amount.text} ${currency} is below ${provider.id}'s minimum of ${formatMinorUnits(minimum)} ${currency}; raise the ` +
        `amount or choose another provider`,
      'amount',
    );
  }
}

/** Whether the provider's checkout takes orders in `currency`, as they are (no conversion). */
export function takesCurrency(provider: ProviderTerms, currency: CurrencyCode): boolean {
  if (provider.currency !== 'any') return provider.currency === currency;
  return provider.currencies === undefined || provider.currencies.includes(currency);
}

/**
 * The provider's minimum in `currency` minor units: as listed when the minimum is in that
 * currency, else the USD minimum converted with the rate table and rounded up.
 */
export function providerMinimum(provider: ProviderTerms, currency: CurrencyCode, rates: RateTable): bigint {
  const minimumInOwnCurrency = parseFiatAmount(provider.minimum).minorUnits;
  if (provider.minimumCurrency === currency) return minimumInOwnCurrency;
  if (provider.minimumCurrency !== 'USD')
    throw new Error(`${provider.id}'s minimum is in ${provider.minimumCurrency}, which has no rate to ${currency}`);
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
