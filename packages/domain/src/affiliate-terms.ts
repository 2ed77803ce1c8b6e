import { getAddress } from 'viem';
import { GatewayError, invalidParameter } from './errors';
import { parsePayoutAddress, sameAddress, type EvmAddress } from './evm-address';
import { BASIS_POINTS_SCALE } from './fee-split';
import { parseWalletRequest, type WalletRequest, type WalletRequestRules } from './wallet-request';

/**
 * The affiliate part of a wallet, fixed when the wallet is created (Create Wallet – Affiliate):
 *  - `configured` (affiliate.php): the affiliate earns the operator's configured share
 *    (AFFILIATE_SHARE_BPS at creation, recorded on the wallet) beside the platform fee; the
 *    merchant gets the rest.
 *  - `custom` (custom-affiliate.php): the merchant chose the split. The merchant gets
 *    `merchantFeeBps`, the affiliate `affiliateFeeBps`, the platform what is left of 100%, all
 *    three recorded on the wallet, so a later change of the platform fee never alters it.
 * A wallet without an affiliate has no terms (null).
 */
export type AffiliateTerms =
  | { kind: 'configured'; address: EvmAddress; affiliateFeeBps: number }
  | { kind: 'custom'; address: EvmAddress; affiliateFeeBps: number; merchantFeeBps: number };

/** The affiliate columns of a wallet row (merchant share set only for a custom split). */
export interface AffiliateRecord {
  affiliateAddress: string | null;
  affiliateFeeBps: number | null;
  merchantFeeBps: number | null;
}

export interface AffiliateWalletRequest extends WalletRequest {
  affiliate: AffiliateTerms;
}

// A fee is a plain decimal in [0, 1]: "0.01", "0.9875", "1", "0". Nothing else is guessed at.
const FEE_FRACTION = /^(\d{1,3})(?:\.(\d{1,12}))?$/;
const FEE_DECIMALS = 4;

/**
 * A fraction of the payment ("0.0125") as whole basis points (125), exactly: the digits are read
 * as integers, never through a float. At most 4 decimals (one basis point); trailing zeros past
 * the fourth ("0.012500", as some shops format numbers) add no precision and are accepted.
 */
export function parseFeeFraction(input: string, param: string): number {
  const match = FEE_FRACTION.exec(input);
  if (!match) {
    throw invalidParameter(
      param,
      `${param} must be a plain decimal fraction between 0 and 1 with at most ${FEE_DECIMALS} decimals, e.g. 0.01 for 1% (got ` +
        `"${truncate(input)}")`,
    );
  }
  const [, whole = '', rawFraction = ''] = match;
  const fraction = rawFraction.replace(/0+$/, '');
  if (fraction.length > FEE_DECIMALS) {
    throw invalidParameter(
      param,
      `${param} has more than ${FEE_DECIMALS} decimals; the split is kept in basis points (0.0001), e.g. 0.0125`,
    );
  }
  const bps = BigInt(whole) * BigInt(BASIS_POINTS_SCALE) + BigInt(fraction.padEnd(FEE_DECIMALS, '0'));
  if (bps > BigInt(BASIS_POINTS_SCALE))
    throw invalidParameter(param, `${param} must be between 0 and 1 (a fraction of the payment, 0.01 = 1%)`);
  // At most 10,000 here: an exact integer as a number.
  return Number(bps);
}

/** Basis points as the decimal fraction the API speaks: 9900 → "0.99", 10000 → "1", 0 → "0". */
export function formatFeeFraction(bps: number): string {
  const whole = Math.floor(bps / BASIS_POINTS_SCALE);
  const fraction = String(bps % BASIS_POINTS_SCALE)
    .padStart(FEE_DECIMALS, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/**
 * The affiliate's payout address: the same rules as the merchant's (EIP-55 when mixed case, not
 * the zero address, not the token contract), and never the merchant's own address.
 */
export function parseAffiliateAddress(input: string, payoutAddress: EvmAddress, rules: { tokenAddress: EvmAddress }): EvmAddress {
  const affiliate = parsePayoutAddress(input, rules, 'affiliate');
  if (sameAddress(affiliate, payoutAddress)) {
    throw invalidParameter(
      'affiliate',
      'affiliate must differ from address: the affiliate is paid to a wallet of its own, not to the payout wallet',
    );
  }
  return affiliate;
}

/** affiliate.php: the payout pair plus an affiliate earning the configured share. */
export function parseAffiliateWalletRequest(
  query: { address: string; callback: string; affiliate: string },
  rules: WalletRequestRules & { affiliateShareBps: number },
): AffiliateWalletRequest {
  const request = parseWalletRequest(query, rules);
  const address = parseAffiliateAddress(query.affiliate, request.payoutAddress, rules);
  return { ...request, affiliate: { kind: 'configured', address, affiliateFeeBps: rules.affiliateShareBps } };
}

/**
 * custom-affiliate.php: the split is given. merchant_fee + affiliate_fee must be exactly what the
 * platform fee leaves (1 − 0.01 = 0.99 by default), compared in basis points, and the merchant's
 * share is never 0.
 */
export function parseCustomAffiliateWalletRequest(
  query: { address: string; callback: string; affiliate: string; affiliate_fee: string; merchant_fee: string },
  rules: WalletRequestRules & { platformFeeBps: number },
): AffiliateWalletRequest {
  const request = parseWalletRequest(query, rules);
  const address = parseAffiliateAddress(query.affiliate, request.payoutAddress, rules);
  const affiliateFeeBps = parseFeeFraction(query.affiliate_fee, 'affiliate_fee');
  const merchantFeeBps = parseFeeFraction(query.merchant_fee, 'merchant_fee');
  if (merchantFeeBps === 0) throw noMerchantLeg();
  const available = BASIS_POINTS_SCALE - rules.platformFeeBps;
  if (merchantFeeBps + affiliateFeeBps !== available) {
    throw invalidParameter(
      'merchant_fee',
      `merchant_fee + affiliate_fee must equal ${formatFeeFraction(available)} (1 minus the platform fee of ` +
        `${formatFeeFraction(rules.platformFeeBps)}); ` +
        `got ${formatFeeFraction(merchantFeeBps)} + ${formatFeeFraction(affiliateFeeBps)} = ` +
        `${formatFeeFraction(merchantFeeBps + affiliateFeeBps)}`,
    );
  }
  return { ...request, affiliate: { kind: 'custom', address, affiliateFeeBps, merchantFeeBps } };
}

/**
 * A wallet always pays its payout address something: its callback tells the shop "paid", and a
 * wallet whose merchant leg is zero would say so for money the shop never gets.
 */
function noMerchantLeg(): GatewayError {
  return invalidParameter(
    'merchant_fee',
    'merchant_fee must be more than 0: a wallet always has a merchant leg, since its callback tells the shop a payment arrived. ' +
      'Give the payout address a share (e.g. merchant_fee=0.98&affiliate_fee=0.01)',
  );
}

/** The terms a wallet row records (null: a wallet without an affiliate). */
export function affiliateTermsOf(record: AffiliateRecord): AffiliateTerms | null {
  if (record.affiliateAddress === null) return null;
  const address = record.affiliateAddress as EvmAddress;
  const affiliateFeeBps = record.affiliateFeeBps ?? 0;
  return record.merchantFeeBps === null
    ? { kind: 'configured', address, affiliateFeeBps }
    : { kind: 'custom', address, affiliateFeeBps, merchantFeeBps: record.merchantFeeBps };
}

/**
 * Whether a request for a (payout, callback) pair asks for the terms its existing wallet has.
 * None vs some, configured vs custom, another affiliate address (any case) or another custom
 * split all differ. A `configured` request matches a `configured` wallet with the same affiliate
 * whatever share that wallet was created with: the request names no share, and the wallet keeps
 * the one it was created with even if the operator changed AFFILIATE_SHARE_BPS since.
 */
export function sameAffiliateTerms(requested: AffiliateTerms | null, existing: AffiliateTerms | null): boolean {
  if (requested === null || existing === null) return requested === existing;
  if (requested.kind !== existing.kind || !sameAddress(requested.address, existing.address)) return false;
  if (requested.kind === 'configured') return true;
  return (
    existing.kind === 'custom' &&
    requested.affiliateFeeBps === existing.affiliateFeeBps &&
    requested.merchantFeeBps === existing.merchantFeeBps
  );
}

/** The 409 for a pair whose wallet was created with other terms; says what it has and how to get a new wallet. */
export function affiliateTermsConflict(existing: AffiliateTerms | null): GatewayError {
  const has =
    existing === null
      ? 'no affiliate (it was created by wallet.php)'
      : existing.kind === 'configured'
        ? `the configured affiliate share for ${getAddress(existing.address)} (it was created by affiliate.php)`
        : `the custom split merchant_fee=${formatFeeFraction(existing.merchantFeeBps)}, ` +
          `affiliate_fee=${formatFeeFraction(existing.affiliateFeeBps)} for ${getAddress(existing.address)} (it was created by ` +
          `custom-affiliate.php)`;
  return new GatewayError(
    'conflict',
    `a wallet for this address and callback already exists with ${has}; its split never changes once payments could arrive. ` +
      'Repeat the original request, or use a callback URL on another path for a wallet with other terms ' +
      '(with CALLBACK_OWNERSHIP=path, every wallet on one callback origin and path has the terms of the first)',
    'callback',
  );
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
