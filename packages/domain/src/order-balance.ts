import type { CurrencyCode } from './currencies';
import { BASIS_POINTS_SCALE } from './fee-split';
import { FIAT_DECIMALS, formatMinorUnits, MAX_FIAT_AMOUNT_UNITS, USDC_DECIMALS, type ExactRate } from './money';
import type { OrderClassification } from './order-state';
import { providerOptions, type AvailableProviderOption, type ProviderOption } from './provider-options';
import type { ProviderTerms } from './provider-terms';

/**
 * An order's balance in the customer's own currency, and the rest an underpaid customer may pay
 * into the same wallet. The judgement is order-state.ts's, in USDC; this file only says it in the
 * order's currency and prices what is missing.
 */

/** What arrived and what is missing or over, in minor units of the order's currency. */
export interface OrderBalance {
  /** The order's amount. */
  order: bigint;
  /** What arrived, priced as the order priced its expectation; rounded down. */
  arrived: bigint;
  /** What is missing for the order to be paid exactly; rounded up, so never less than is missing. */
  missing: bigint;
  /** What arrived beyond the order; rounded down. */
  excess: bigint;
}

/**
 * The order's judgement in its currency. USDC is priced at the order's own rate: its amount for the
 * USDC it was expected to bring (the recorded rate with the provider's fee already taken), so that
 * what arrived and what is missing add up to the order: `expected` USDC is the whole amount.
 */
export function orderBalance(
  orderMinorUnits: bigint,
  judged: Pick<OrderClassification, 'totalUsdc' | 'expectedUsdc' | 'missingUsdc' | 'excessUsdc'>,
): OrderBalance {
  const { expectedUsdc } = judged;
  if (expectedUsdc <= 0n) {
    // An order expected to bring nothing (a provider fee of 100 %) has nothing to price its USDC with.
    return { order: orderMinorUnits, arrived: orderMinorUnits, missing: 0n, excess: 0n };
  }
  const missing = ceilDiv(judged.missingUsdc * orderMinorUnits, expectedUsdc);
  const arrived = judged.missingUsdc > 0n ? orderMinorUnits - missing : (judged.totalUsdc * orderMinorUnits) / expectedUsdc;
  return { order: orderMinorUnits, arrived, missing, excess: (judged.excessUsdc * orderMinorUnits) / expectedUsdc };
}

const USDC_BASE_UNITS_PER_CENT = 10n ** BigInt(USDC_DECIMALS - FIAT_DECIMALS);
const BPS = BigInt(BASIS_POINTS_SCALE);

/**
 * The amount (minor units of the currency whose `rate` is given: units per 1 USD) to ask a provider
 * for so that `missingUsdc` arrives: USDC at 1:1 to USD, grossed up by the most the provider
 * documents it takes (so the rest does not fall short again), at the order's recorded rate, rounded
 * up to the cent once, at the end.
 */
export function restCharge(missingUsdc: bigint, provider: Pick<ProviderTerms, 'fees'>, rate: ExactRate): bigint {
  const { maxBps } = provider.fees;
  if (!Number.isInteger(maxBps) || maxBps < 0 || maxBps >= BASIS_POINTS_SCALE) {
    throw new RangeError(`a provider's documented fee must be under 100 %, got ${maxBps} basis points`);
  }
  if (missingUsdc <= 0n) return 0n;
  const numerator = missingUsdc * BPS * rate.numerator;
  const denominator = USDC_BASE_UNITS_PER_CENT * (BPS - BigInt(maxBps)) * rate.denominator;
  return ceilDiv(numerator, denominator);
}

/**
 * Each offered provider with the rest it would be asked for (its own fees priced in), judged by the
 * hosted checkout's rules (providerOptions: its currency, its minimum) at the order's recorded rate:
 * the rest is a part of that order, not a new one priced today. A provider that takes USD only is
 * asked for the rest converted to USD at that rate.
 */
export function restOptions(input: {
  missingUsdc: bigint;
  currency: CurrencyCode;
  /** The order's recorded rate: units of `currency` per 1 USD. */
  rate: ExactRate;
  offered: readonly ProviderTerms[];
}): ProviderOption[] {
  const { missingUsdc, currency, rate, offered } = input;
  if (missingUsdc <= 0n) return [];
  const rates = new Map([[currency, rate]]);
  return offered.flatMap((provider): ProviderOption[] => {
    const minorUnits = restCharge(missingUsdc, provider, rate);
    if (minorUnits > MAX_FIAT_AMOUNT_UNITS * 10n ** BigInt(FIAT_DECIMALS)) {
      return [{ status: 'unavailable', provider, reason: `Maximum ${MAX_FIAT_AMOUNT_UNITS} ${currency}` }];
    }
    return providerOptions({ text: formatMinorUnits(minorUnits), minorUnits }, currency, rates, [provider]);
  });
}

/** The providers that can take the rest: available, each with its charge. */
export function restProviders(options: readonly ProviderOption[]): AvailableProviderOption[] {
  return options.filter((option): option is AvailableProviderOption => option.status === 'available');
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}
