import type { CurrencyCode } from './currencies';
import { GatewayError } from './errors';
import { BASIS_POINTS_SCALE } from './fee-split';
import { FIAT_DECIMALS, USDC_DECIMALS, type FiatAmount } from './money';
import type { RateTable } from './provider-terms';

/** What an on-ramp delivers for a card payment: the fiat amount in USDC, less its fee. */
export interface OnRampQuote {
  /** The fiat amount converted to USDC at the rate, in base units. */
  grossUsdc: bigint;
  /** The provider's fee, in base units. */
  feeUsdc: bigint;
  /** What reaches the temporary wallet: gross - fee. */
  netUsdc: bigint;
}

const MINOR_TO_BASE_UNITS = 10n ** BigInt(USDC_DECIMALS - FIAT_DECIMALS);

/**
 * Converts a card payment to the USDC an on-ramp delivers. USD is 1:1 (USDC is a dollar); any
 * other currency goes through the rate table (units per 1 USD). The conversion rounds down and
 * the fee rounds up, so an estimate never promises a base unit more than arrives.
 */
export function quoteOnRamp(amount: FiatAmount, currency: CurrencyCode, rates: RateTable, feeBps: number): OnRampQuote {
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps >= BASIS_POINTS_SCALE) {
    throw new RangeError(`feeBps must be an integer in [0, ${BASIS_POINTS_SCALE}), got ${feeBps}`);
  }
  let grossUsdc = amount.minorUnits * MINOR_TO_BASE_UNITS;
  if (currency !== 'USD') {
    const rate = rates.get(currency);
    if (!rate) {
      throw new GatewayError(
        'unsupported_currency',
        `currency ${currency} has no exchange rate configured; pay in USD or ask the operator to add a rate`,
        'currency',
      );
    }
    grossUsdc = (grossUsdc * rate.denominator) / rate.numerator;
  }
  const scale = BigInt(BASIS_POINTS_SCALE);
  const feeUsdc = (grossUsdc * BigInt(feeBps) + scale - 1n) / scale;
  return { grossUsdc, feeUsdc, netUsdc: grossUsdc - feeUsdc };
}
