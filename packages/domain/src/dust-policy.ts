/**
 * Dust: a deposit too small to be worth the gas of its own payout. It is never forwarded alone
 * and never forgotten: it is `held`, and the next payout of its wallet carries it. Amounts are
 * USDC base units (bigint).
 *
 *  - The next deposit into the wallet is paid out together with every deposit held there: one
 *    payout plan for the sum (split like any deposit), the held deposits marked `swept` by it,
 *    one callback whose value_coin is the sum. While the sum is still below the threshold, the
 *    new deposit is held too.
 *  - An operator's sweep (`gateway dust sweep`) pays a wallet's held dust on demand when it sums to the
 *    threshold, or whatever it sums to when forced.
 *  - A payout above the threshold whose platform fee is worth less than its gas at today's gas
 *    price (payoutGasCheck, below) is held the same way, until the wallet's sum earns its gas.
 */

import { isDustDeposit, type PayoutLegAmount } from './fee-split';

export interface DustPayout {
  /** Pay now (true), or hold (false). */
  pay: boolean;
  /** What the payout moves: the deposit plus the held dust it sweeps. */
  payable: bigint;
}

const sum = (amounts: readonly bigint[]): bigint => amounts.reduce((total, amount) => total + amount, 0n);

/** A final deposit into a wallet holding `heldDust`: paid with all of it, or held with it. */
export function payoutOfDeposit(amount: bigint, heldDust: readonly bigint[], dustThreshold: bigint): DustPayout {
  const payable = amount + sum(heldDust);
  return { pay: !isDustDeposit(payable, dustThreshold), payable };
}

/** An operator's sweep of a wallet's held dust, with no new deposit. */
export function sweepOfHeldDust(heldDust: readonly bigint[], dustThreshold: bigint, force: boolean): DustPayout {
  const payable = sum(heldDust);
  return { pay: payable > 0n && (force || !isDustDeposit(payable, dustThreshold)), payable };
}

/**
 * Gas of the costliest payout the settlement worker relays: three transferWithAuthorization legs
 * (merchant, platform fee, affiliate), each to a recipient holding no USDC yet, as
 * `pnpm --filter @gateway/bench bench:gas` measured on TestUSDC (bench/results/gas.json:
 * 89,193 + 89,181 + 84,364). A two-leg payout to known recipients costs about half.
 */
export const PAYOUT_RELAY_GAS = 262_738n;

/** Gas of the costliest leg of that measurement: what each leg of a payout is reckoned to cost. */
export const PAYOUT_LEG_RELAY_GAS = 89_193n;

/**
 * Polygon PoS gas price assumed, in wei: 200 gwei. The protocol floor is 25 gwei (Polygon's gas
 * station documentation: a minimum priority fee of 25 gwei on PoS mainnet) and ordinary blocks pay
 * 30-100 gwei; 200 gwei covers most congestion, when payouts still go out.
 */
export const ASSUMED_RELAY_GAS_PRICE_WEI = 200n * 10n ** 9n;

/**
 * POL price assumed, in USDC base units per POL: 0.50 USDC. POL traded between about 0.07 and
 * 0.30 USD over the year to mid-2026 (all-time high 1.29 in March 2024); half a dollar leaves
 * room for a rally before the threshold is below cost.
 */
export const ASSUMED_NATIVE_PRICE_USDC = 500_000n;

const WEI_PER_NATIVE_COIN = 10n ** 18n;

/** Cost of `gas` at `gasPriceWei`, in USDC base units (rounded up), for a native coin worth `nativePriceUsdc` base units. */
export function relayCostInUsdc(gas: bigint, gasPriceWei: bigint, nativePriceUsdc: bigint): bigint {
  const scaled = gas * gasPriceWei * nativePriceUsdc;
  return (scaled + WEI_PER_NATIVE_COIN - 1n) / WEI_PER_NATIVE_COIN;
}

/**
 * DUST_THRESHOLD's default: the costliest payout at the assumed prices (0.026274 USDC), rounded up
 * to the next cent: 0.03 USDC. Below it a payout would cost the gateway more gas than it moves.
 */
export const DEFAULT_DUST_THRESHOLD = 30_000n;

/** The price of the relayer's gas, as settlement weighs a payout before planning it. */
export interface RelayGasPrice {
  /** Wei per gas the relayer would sign with now: the fee estimate's maxFeePerGas, at most MAX_FEE_PER_GAS_GWEI. */
  gasPriceWei: bigint;
  /** USDC base units per native coin (NATIVE_PRICE_USDC). */
  nativePriceUsdc: bigint;
}

/** A payout weighed: what its gas costs the relayer and what the gateway keeps of it, in USDC base units. */
export interface PayoutGasCheck {
  /** Every leg at PAYOUT_LEG_RELAY_GAS at the price, rounded up. */
  gasCostUsdc: bigint;
  /** The platform's leg: the affiliate's share is the affiliate's, the merchant's the merchant's. */
  earnedUsdc: bigint;
  /** The gateway earns at least the gas it pays. */
  covered: boolean;
}

/**
 * Whether a payout of these legs earns the gateway its gas. Each leg is one relayer transaction,
 * reckoned at the costliest leg measured; the price is the relayer's maximum per gas, so the real
 * cost (base fee plus tip) is at most this. A payout that is not covered is held like dust (unless
 * the operator pays such payouts, PAYOUT_BELOW_GAS_COST=pay): otherwise a payer who is their own
 * payout could recycle small deposits, each returning 99% to them, while the relayer pays the gas.
 */
export function payoutGasCheck(legs: readonly PayoutLegAmount[], price: RelayGasPrice): PayoutGasCheck {
  const gasCostUsdc = relayCostInUsdc(BigInt(legs.length) * PAYOUT_LEG_RELAY_GAS, price.gasPriceWei, price.nativePriceUsdc);
  const earnedUsdc = legs.find((leg) => leg.kind === 'platform')?.amount ?? 0n;
  return { gasCostUsdc, earnedUsdc, covered: earnedUsdc >= gasCostUsdc };
}
