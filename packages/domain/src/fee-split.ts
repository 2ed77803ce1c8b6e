/**
 * How a final deposit is divided when it is forwarded: the platform fee, the affiliate's share
 * when the wallet was created with one, and the merchant gets the rest. Fees are basis points of
 * the deposit. The total fee is rounded DOWN to a whole base unit and the merchant leg is the
 * remainder, so the legs always add up to the deposit exactly, rounding favours the merchant, and
 * a larger deposit never pays the merchant less. Within the fee the affiliate's share is rounded
 * down and the platform keeps the odd unit. The affiliate share is charged on the deposit beside
 * the platform fee (not carved out of it).
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

/** A deposit below the dust threshold is held rather than forwarded: its gas would cost more than it is worth. */
export function isDustDeposit(amount: bigint, dustThreshold: bigint): boolean {
  return amount < dustThreshold;
}
