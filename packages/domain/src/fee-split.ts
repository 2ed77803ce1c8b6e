/**
 * How a final deposit is divided when it is forwarded: the platform fee, the affiliate's share
 * when the wallet was created with one, and the merchant gets the rest. Fees are basis points
 * (1/10,000) of the deposit; amounts are token base units (bigint), never floats.
 *
 * Rounding rule, for a deposit A and shares p (platform) and a (affiliate), S = 10,000:
 *   total fee = floor(A·(p + a) / S)      merchant  = A − total fee
 *   affiliate = floor(A·a / S)            platform  = total fee − affiliate
 * so the legs always add up to the deposit exactly, rounding favours the merchant (it gets its
 * exact share rounded UP: with m = S − p − a, merchant = ceil(A·m / S)), the affiliate gets its
 * exact share rounded DOWN, and the platform keeps the odd unit (within one base unit of its exact
 * share). A larger deposit never pays the merchant less.
 *
 * Which p and a a wallet's deposits use: both are recorded on the wallet when it is created
 * (walletPlatformFeeBps), and settlement splits by what the wallet records (splitWalletDeposit),
 * whatever PLATFORM_FEE_BPS says later:
 *  - no affiliate, or affiliate.php: p is PLATFORM_FEE_BPS at creation, a the affiliate's share
 *    (charged beside the platform fee, not carved out of it);
 *  - custom-affiliate.php: the wallet records the merchant's and the affiliate's shares; the
 *    platform gets what is left, p = S − m − a. The merchant then gets exactly ceil(A·m/S), the
 *    affiliate floor(A·a/S), the platform the rest.
 */

/** 100% in basis points. */
export const BASIS_POINTS_SCALE = 10_000;

export type PayoutLegKind = 'merchant' | 'platform' | 'affiliate';

/** Leg kinds in the order they are planned and sent; the merchant is paid first. */
export const PAYOUT_LEG_KINDS: readonly PayoutLegKind[] = ['merchant', 'platform', 'affiliate'];

export interface PayoutLegAmount {
  kind: PayoutLegKind;
  /** Token base units, always > 0 (a zero leg is not sent). */
  amount: bigint;
}

export interface FeeSplit {
  merchant: bigint;
  platformFee: bigint;
  affiliateFee: bigint;
  /** platformFee + affiliateFee: what the callback reports as fee_coin. */
  totalFee: bigint;
  /** Non-zero legs only, in PAYOUT_LEG_KINDS order; their amounts sum to the deposit. */
  legs: PayoutLegAmount[];
}

function assertBasisPoints(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 0 || value > BASIS_POINTS_SCALE) {
    throw new RangeError(`${name} must be an integer number of basis points between 0 and ${BASIS_POINTS_SCALE}, got ${value}`);
  }
}

function feeOf(amount: bigint, basisPoints: number): bigint {
  return (amount * BigInt(basisPoints)) / BigInt(BASIS_POINTS_SCALE);
}

/**
 * Splits `amount` (base units, > 0) into merchant, platform and affiliate legs.
 * Throws RangeError for a non-positive amount or fees that are not basis points summing to at most 100%.
 */
export function splitDeposit(amount: bigint, platformFeeBps: number, affiliateFeeBps = 0): FeeSplit {
  if (amount <= 0n) throw new RangeError(`a deposit to split must be positive, got ${amount}`);
  assertBasisPoints(platformFeeBps, 'platformFeeBps');
  assertBasisPoints(affiliateFeeBps, 'affiliateFeeBps');
  if (platformFeeBps + affiliateFeeBps > BASIS_POINTS_SCALE) {
    throw new RangeError(`platform (${platformFeeBps}) and affiliate (${affiliateFeeBps}) fees together exceed 100%`);
  }
  const totalFee = feeOf(amount, platformFeeBps + affiliateFeeBps);
  const affiliateFee = feeOf(amount, affiliateFeeBps);
  const platformFee = totalFee - affiliateFee;
  const merchant = amount - totalFee;
  const byKind: Record<PayoutLegKind, bigint> = { merchant, platform: platformFee, affiliate: affiliateFee };
  const legs = PAYOUT_LEG_KINDS.filter((kind) => byKind[kind] > 0n).map((kind) => ({ kind, amount: byKind[kind] }));
  return { merchant, platformFee, affiliateFee, totalFee, legs };
}

/** What a new wallet's request says about its split (the affiliate columns of `wallets`). */
export interface WalletSplitTerms {
  /** The affiliate's share in basis points; null for a wallet without an affiliate. */
  affiliateFeeBps: number | null;
  /** Set only for a custom split (custom-affiliate.php): the merchant's share, fixed at creation. */
  merchantFeeBps: number | null;
}

/** What a wallet records about the fees of its deposits (`wallets.platform_fee_bps`, `affiliate_fee_bps`). */
export interface WalletFeeTerms {
  /** The platform's share, recorded when the wallet was created. */
  platformFeeBps: number;
  /** The affiliate's share in basis points; null for a wallet without an affiliate. */
  affiliateFeeBps: number | null;
}

/**
 * The platform's share to record on a new wallet: the configured fee (PLATFORM_FEE_BPS), or what a
 * custom split leaves. Recorded once; a later change of the setting never re-prices the wallet.
 */
export function walletPlatformFeeBps(terms: WalletSplitTerms, configuredPlatformFeeBps: number): number {
  if (terms.merchantFeeBps === null) return configuredPlatformFeeBps;
  assertBasisPoints(terms.merchantFeeBps, 'merchantFeeBps');
  const platform = BASIS_POINTS_SCALE - terms.merchantFeeBps - (terms.affiliateFeeBps ?? 0);
  if (platform < 0) {
    throw new RangeError(`merchant (${terms.merchantFeeBps}) and affiliate (${terms.affiliateFeeBps}) shares together exceed 100%`);
  }
  return platform;
}

/** Splits a deposit into a wallet by the fees the wallet records (see the rule above). */
export function splitWalletDeposit(amount: bigint, terms: WalletFeeTerms): FeeSplit {
  return splitDeposit(amount, terms.platformFeeBps, terms.affiliateFeeBps ?? 0);
}

/** A deposit below the dust threshold is held rather than forwarded: its gas would cost more than it is worth. */
export function isDustDeposit(amount: bigint, dustThreshold: bigint): boolean {
  return amount < dustThreshold;
}
