import type { CurrencyCode } from './currencies';
import { convertToUsdMinorUnits, FIAT_DECIMALS, formatMinorUnits, MAX_FIAT_AMOUNT_UNITS, type FiatAmount } from './money';
import { providerMinimum, takesCurrency, type ProviderTerms, type RateTable } from './provider-terms';

/** What a provider's checkout will be asked to charge: Process Payment's `amount` and `currency`. */
export interface ProviderCharge {
  readonly amount: FiatAmount;
  readonly currency: CurrencyCode;
}

/** The customer can choose it: Process Payment with `charge` passes the provider's rules. */
export interface AvailableProviderOption {
  readonly status: 'available';
  readonly provider: ProviderTerms;
  readonly charge: ProviderCharge;
  /** The provider takes USD only and `charge` is the order's amount converted to USD (rounded up). */
  readonly converted: boolean;
}

/** Listed, but it cannot take this order; `reason` says why, e.g. "Minimum 20.00 USD". */
export interface UnavailableProviderOption {
  readonly status: 'unavailable';
  readonly provider: ProviderTerms;
  readonly reason: string;
  readonly charge?: ProviderCharge;
}

/** Would be offered with an exchange rate, and none is available right now: not listed, `reason` explains. */
export interface WithheldProviderOption {
  readonly status: 'withheld';
  readonly provider: ProviderTerms;
  readonly reason: string;
}

export type ProviderOption = AvailableProviderOption | UnavailableProviderOption | WithheldProviderOption;

const MAX_MINOR_UNITS = MAX_FIAT_AMOUNT_UNITS * 10n ** BigInt(FIAT_DECIMALS);

/**
 * Which of the `offered` providers the hosted checkout lists for an order of `amount` in
 * `currency`, in their order. Providers that take any currency charge the order as it is. A USD-only provider is
 * offered for any order, converted to USD with `rates` and rounded up to the cent (a converted
 * payment never falls short). A provider restricted to another currency (Interac: CAD, UPI: INR),
 * or to a few (Coinbase), appears only for orders in one of them. Each is checked against its minimum exactly as
 * Process Payment checks it (`providerMinimum`). `rates` undefined means no rates could be read:
 * what needs no rate is still offered (every provider for a USD order; Interac for CAD, UPI for
 * INR); for another order the USD-only providers are withheld, and the providers that take any
 * currency are unavailable (their USD minimum cannot be converted, so Process Payment would
 * refuse them too).
 */
export function providerOptions(
  amount: FiatAmount,
  currency: CurrencyCode,
  rates: RateTable | undefined,
  offered: readonly ProviderTerms[],
): ProviderOption[] {
  const options: ProviderOption[] = [];
  for (const provider of offered) {
    if (takesCurrency(provider, currency)) {
      options.push(ownCurrencyOption(provider, amount, currency, rates));
    } else if (provider.currency === 'USD') {
      options.push(convertedOption(provider, amount, currency, rates));
    }
    // A provider restricted to currencies other than this one (and not USD alone) is not for this order at all.
  }
  return options;
}

function ownCurrencyOption(
  provider: ProviderTerms,
  amount: FiatAmount,
  currency: CurrencyCode,
  rates: RateTable | undefined,
): ProviderOption {
  const charge = { amount, currency };
  if (provider.minimumCurrency !== currency && rates === undefined) {
    return { status: 'unavailable', provider, reason: 'Exchange rate unavailable right now' };
  }
  if (provider.minimumCurrency !== currency && !rates?.has(currency)) {
    return { status: 'unavailable', provider, reason: `No exchange rate for ${currency} right now` };
  }
  return checkMinimum(provider, charge, false, rates ?? new Map());
}

function convertedOption(
  provider: ProviderTerms,
  amount: FiatAmount,
  currency: CurrencyCode,
  rates: RateTable | undefined,
): ProviderOption {
  if (rates === undefined) {
    return {
      status: 'withheld',
      provider,
      reason: `${provider.displayName} takes USD only, and no exchange rate to convert ${currency} is available right now`,
    };
  }
  const rate = rates.get(currency);
  if (!rate) return { status: 'withheld', provider, reason: `${provider.displayName} takes USD only; ${noRateReason(currency)}` };
  const usd = convertToUsdMinorUnits(amount.minorUnits, rate);
  const charge: ProviderCharge = { amount: { text: formatMinorUnits(usd), minorUnits: usd }, currency: 'USD' };
  if (usd > MAX_MINOR_UNITS) {
    return { status: 'unavailable', provider, reason: `Maximum ${formatMinorUnits(MAX_MINOR_UNITS)} USD`, charge };
  }
  return checkMinimum(provider, charge, true, rates);
}

function checkMinimum(provider: ProviderTerms, charge: ProviderCharge, converted: boolean, rates: RateTable): ProviderOption {
  const minimum = providerMinimum(provider, charge.currency, rates);
  if (charge.amount.minorUnits < minimum) {
    return { status: 'unavailable', provider, reason: `Minimum ${formatMinorUnits(minimum)} ${charge.currency}`, charge };
  }
  return { status: 'available', provider, charge, converted };
}

function noRateReason(currency: CurrencyCode): string {
  return `no exchange rate for ${currency} is available right now`;
}
