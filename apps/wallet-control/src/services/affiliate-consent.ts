import {
  affiliateConsentRefusal,
  affiliateConsentTerms,
  pinnedAddressRefusal,
  type AddressPin,
  type AffiliateTerms,
  type WalletRequest,
} from '@gateway/domain';

export interface AffiliateConsentSettings {
  /** PAYOUT_ADDRESSES, AFFILIATE_ADDRESSES: the only addresses paid, when set. */
  pins?: { payout?: AddressPin; affiliate?: AddressPin };
  /** PLATFORM_FEE_BPS: what the consent message says the platform takes. */
  platformFeeBps: number;
}

/**
 * Affiliate terms only with consent (affiliate-consent in @gateway/domain), checked before any
 * wallet exists, also on a repeat: the operator's, when AFFILIATE_ADDRESSES pins the affiliate
 * (a pin leaves out every other affiliate, signed or not), else the payout address owner's signature.
 */
export async function assertAffiliateConsent(
  request: WalletRequest,
  terms: AffiliateTerms,
  signature: string | undefined,
  { pins, platformFeeBps }: AffiliateConsentSettings,
): Promise<void> {
  const pin = pins?.affiliate;
  const pinned =
    pinnedAddressRefusal(request.payoutAddress, pins?.payout, 'address') ?? pinnedAddressRefusal(terms.address, pin, 'affiliate');
  if (pinned) throw pinned;
  const refusal = await affiliateConsentRefusal(affiliateConsentTerms(request, terms, platformFeeBps), {
    signature,
    operatorPinned: pin !== undefined,
  });
  if (refusal) throw refusal;
}
