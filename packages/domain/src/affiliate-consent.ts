import { getAddress, recoverMessageAddress } from 'viem';
import { formatFeeFraction, type AffiliateTerms } from './affiliate-terms';
import { GatewayError, invalidParameter } from './errors';
import { sameAddress, type EvmAddress } from './evm-address';
import { BASIS_POINTS_SCALE } from './fee-split';

/**
 * Affiliate terms send part of a wallet's money away from its payout address, so they need the
 * consent of the payout address's owner or of the operator (issue 22): anyone may name a shop's
 * payout address, and a stranger who set an affiliate of their own at 99% got the shop a validly
 * signed "paid" callback for money the shop never received. The operator consents by listing the
 * affiliate in AFFILIATE_ADDRESSES; the owner by an EIP-191 `personal_sign` over the message below,
 * recovered to the payout address (an EOA: contract wallets, EIP-1271, are not verified).
 *
 * The message names the gateway's purpose and every term, one per line, in a fixed order and
 * spelling: lower-case addresses (no checksum to compute where a merchant builds it), fees as the
 * API writes them (formatFeeFraction: "0.98", "0.005"), the callback URL exactly as registered.
 * The SDK builds the same text (affiliateConsentMessage in @usdc-card-gateway/sdk, a copy tested against
 * this one).
 */
export const AFFILIATE_CONSENT_PURPOSE = 'Card-to-USDC gateway: consent to affiliate terms (v1)';

export interface AffiliateConsentTerms {
  payoutAddress: string;
  affiliateAddress: string;
  /** The payout address's share, in basis points (never 0). */
  merchantFeeBps: number;
  affiliateFeeBps: number;
  /** Exactly as registered (Create Wallet's callback_url). */
  callbackUrl: string;
}

/** The text the payout address's owner signs with `personal_sign` (EIP-191), lines joined by "\n". */
export function affiliateConsentMessage(terms: AffiliateConsentTerms): string {
  return [
    AFFILIATE_CONSENT_PURPOSE,
    `payout: ${terms.payoutAddress.toLowerCase()}`,
    `affiliate: ${terms.affiliateAddress.toLowerCase()}`,
    `merchant_fee: ${formatFeeFraction(terms.merchantFeeBps)}`,
    `affiliate_fee: ${formatFeeFraction(terms.affiliateFeeBps)}`,
    `callback: ${terms.callbackUrl}`,
  ].join('\n');
}

/**
 * The terms a wallet request asks the owner to consent to. affiliate.php names no fees: the
 * message has the configured share as the wallet records it, and what the platform fee and that
 * share leave the merchant.
 */
export function affiliateConsentTerms(
  request: { payoutAddress: EvmAddress; callbackUrl: string },
  terms: AffiliateTerms,
  platformFeeBps: number,
): AffiliateConsentTerms {
  const merchantFeeBps = terms.kind === 'custom' ? terms.merchantFeeBps : BASIS_POINTS_SCALE - platformFeeBps - terms.affiliateFeeBps;
  return {
    payoutAddress: request.payoutAddress,
    affiliateAddress: terms.address,
    merchantFeeBps,
    affiliateFeeBps: terms.affiliateFeeBps,
    callbackUrl: request.callbackUrl,
  };
}

// 65 bytes: r, s and v, as personal_sign answers (EIP-2098's 64-byte form is not accepted).
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

/**
 * Why these affiliate terms may not be set, or undefined: the affiliate is pinned by the operator
 * (`operatorPinned`), or `signature` is the payout address's personal_sign of their message.
 * Missing: 403 affiliate_consent_required, saying what to sign with which key; not a signature:
 * 400; a signature that recovers to another address (another key, or another message): 403
 * affiliate_consent_invalid.
 */
export async function affiliateConsentRefusal(
  terms: AffiliateConsentTerms,
  consent: { signature: string | undefined; operatorPinned: boolean },
): Promise<GatewayError | undefined> {
  if (consent.operatorPinned) return undefined;
  const message = affiliateConsentMessage(terms);
  if (consent.signature === undefined || consent.signature === '') {
    return new GatewayError(
      'affiliate_consent_required',
      "affiliate terms send part of every payment away from the payout address, so they need its owner's consent: add " +
        "signature=<the payout address's EIP-191 personal_sign " +
        `of this exact message, lines joined by \\n: ${JSON.stringify(message)}> (the SDK's signAffiliateConsent makes it), ` +
        'or ask the gateway operator to list the affiliate in AFFILIATE_ADDRESSES',
      'signature',
    );
  }
  if (!SIGNATURE.test(consent.signature)) {
    return invalidParameter(
      'signature',
      'signature must be an EIP-191 personal_sign signature: 0x followed by 130 hexadecimal characters (65 bytes: r, s, v)',
    );
  }
  let signer: string;
  try {
    signer = await recoverMessageAddress({ message, signature: consent.signature as `0x${string}` });
  } catch {
    return invalidParameter('signature', 'signature is not a valid secp256k1 signature (r, s or v out of range); sign the message again');
  }
  if (sameAddress(signer, terms.payoutAddress)) return undefined;
  return new GatewayError(
    'affiliate_consent_invalid',
    `signature was not made by the payout address ${getAddress(terms.payoutAddress)} over these terms: it was made with another ` +
      `key, or over another message. ` +
      `Sign this exact message, lines joined by \\n, with the payout address's key: ${JSON.stringify(message)}`,
    'signature',
  );
}
