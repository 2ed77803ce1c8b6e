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
