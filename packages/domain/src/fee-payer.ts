import { invalidParameter } from './errors';
import { BASIS_POINTS_SCALE, type WalletFeeTerms } from './fee-split';
import { FIAT_DECIMALS, USDC_DECIMALS } from './money';
import type { DocumentedFees } from './order-state';

/**
 * Who pays an order's fees (issue 32). `shop`: the customer pays the order amount and the
 * provider's fees come out of it, so the shop receives less than the order's value (the PayGate
 * way, and the default). `customer`: fees on top; where the provider can sell a fixed amount of
 * USDC, it is asked for exactly the USDC that leaves the shop the order's full value once the
 * gateway's fee (and the affiliate's share) is taken, and the customer pays the provider's fees
 * above the order amount. A provider that cannot sell a fixed amount keeps the fees inside.
 */
export type FeePayer = 'shop' | 'customer';

/** Create Wallet's optional parameter that asks for fees on top (1) or inside (0) for the wallet's order. */
export const CUSTOMER_PAYS_FEE_PARAM = 'customer_pays_fee';

/**
 * Who pays this order's fees: the wallet's own choice when Create Wallet was given one (fixed
 * with the wallet), else the operator's (CUSTOMER_PAYS_FEES, off by default).
 */
export function feePayerOf(operatorCustomerPaysFees: boolean, walletCustomerPaysFee: boolean | null | undefined): FeePayer {
  const customerPays = walletCustomerPaysFee ?? operatorCustomerPaysFees;
  return customerPays ? 'customer' : 'shop';
}

/** Reads customer_pays_fee: `1` (fees on top) or `0` (fees inside); anything else is refused, naming the parameter. */
export function parseCustomerPaysFee(input: string, param: string = CUSTOMER_PAYS_FEE_PARAM): boolean {
  if (input === '1') return true;
  if (input === '0') return false;
  throw invalidParameter(
    param,
    `${param} must be 1 (the customer pays the provider's fees on top, so the shop receives the order's full value, where the ` +
      `provider can sell a fixed amount of USDC) or 0 (fees inside the order amount); got "${input.slice(0, 20)}"`,
  );
}

/**
 * The smallest deposit A whose merchant share, as settlement splits it (splitWalletDeposit: the
 * merchant gets ceil(A·m / S) with m = S − platform − affiliate), is at least `orderUsdc`:
 * A = floor((V − 1)·S / m) + 1. One base unit less leaves the merchant short, so the customer
 * never buys a base unit more than the shop's full value needs. Throws RangeError when the
 * wallet's fees leave the merchant nothing (no deposit is enough) or the order is worth nothing.
 */
export function usdcForFullValue(orderUsdc: bigint, terms: WalletFeeTerms): bigint {
  if (orderUsdc <= 0n) throw new RangeError(`an order's value must be positive, got ${orderUsdc}`);
  const scale = BigInt(BASIS_POINTS_SCALE);
  const merchantBps = scale - BigInt(terms.platformFeeBps) - BigInt(terms.affiliateFeeBps ?? 0);
  if (merchantBps <= 0n) throw new RangeError('the wallet fees leave the merchant no share: no deposit brings the full value');
  return ((orderUsdc - 1n) * scale) / merchantBps + 1n;
}

/** How an attempt's checkout is made: fiat amount with the fees inside, or a fixed USDC amount with the fees on top. */
export type CheckoutAmount =
  | { readonly feesOnTop: false }
  | {
      readonly feesOnTop: true;
      /** The order's value in USDC (base units): what the shop receives of `usdc`. */
      readonly orderUsdc: bigint;
      /** USDC (base units) the provider is asked to deliver: orderUsdc grossed up for the wallet's fees (usdcForFullValue). */
      readonly usdc: bigint;
    };

const MINOR_TO_BASE_UNITS = 10n ** BigInt(USDC_DECIMALS - FIAT_DECIMALS);

/**
 * The checkout of an attempt: fees on top only when the customer pays them, the provider sells a
 * fixed amount of USDC (its descriptor says so) and the wallet's fees leave the merchant a share; the
 * order's value is its USD value (1 USD = 1 USDC, as expectUsdc values it).
 */
export function checkoutAmountOf(input: {
  payer: FeePayer;
  sellsFixedUsdc: boolean;
  /** The order's value in USD cents at the attempt's rate. */
  usdCents: bigint;
  terms: WalletFeeTerms;
}): CheckoutAmount {
  if (input.payer !== 'customer' || !input.sellsFixedUsdc) return { feesOnTop: false };
  // Fees that leave the merchant no share: no amount brings the full value, so the fees stay inside.
  const merchantBps = BASIS_POINTS_SCALE - input.terms.platformFeeBps - (input.terms.affiliateFeeBps ?? 0);
  if (merchantBps <= 0 || input.usdCents <= 0n) return { feesOnTop: false };
  const orderUsdc = input.usdCents * MINOR_TO_BASE_UNITS;
  return { feesOnTop: true, orderUsdc, usdc: usdcForFullValue(orderUsdc, input.terms) };
}

/**
 * What the customer pays for a fees-on-top checkout where the provider's quote cannot price a fixed
 * USDC amount, estimated from its documented fees: the order amount scaled to the USDC bought
 * (amount · usdc / orderUsdc), grossed up by the middle of the fee range (÷ (1 − middle)), in the
 * order's minor units, rounded up (never telling the customer less).
 */
export function feesOnTopEstimate(input: { amountMinorUnits: bigint; orderUsdc: bigint; usdc: bigint; fees: DocumentedFees }): bigint {
  const { amountMinorUnits, orderUsdc, usdc, fees } = input;
  if (amountMinorUnits <= 0n || orderUsdc <= 0n || usdc <= 0n) throw new RangeError('a fees-on-top estimate needs positive amounts');
  const twiceScale = 2n * BigInt(BASIS_POINTS_SCALE);
  const keptTwice = twiceScale - BigInt(fees.minBps + fees.maxBps);
  if (keptTwice <= 0n) throw new RangeError(`documented fees ${fees.minBps}..${fees.maxBps} leave nothing to buy with`);
  const numerator = amountMinorUnits * usdc * twiceScale;
  const denominator = orderUsdc * keptTwice;
  return (numerator + denominator - 1n) / denominator;
}
