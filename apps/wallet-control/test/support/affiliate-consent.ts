import { signAffiliateConsent } from '@usdc-card-gateway/sdk';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * A payout address whose owner can sign consent in tests. Not one of anvil's keys: the test xpub is
 * anvil's mnemonic, so those addresses are this gateway's own temporary wallets, never a payout.
 */
export const consentingOwner = privateKeyToAccount('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');

/**
 * The `signature` of an affiliate request by the payout address's owner (consentingOwner), made
 * with the SDK as a merchant would. affiliate.php names no fees: pass what the settings give
 * (merchant 1 − platform − share, affiliate the share; 0.985 and 0.005 by default).
 */
export function ownerConsent(query: {
  callback: string;
  affiliate: string;
  merchant_fee?: string;
  affiliate_fee?: string;
}): Promise<string> {
  return signAffiliateConsent(
    {
      payoutAddress: consentingOwner.address,
      affiliateAddress: query.affiliate,
      merchantFee: query.merchant_fee ?? '0.985',
      affiliateFee: query.affiliate_fee ?? '0.005',
      callbackUrl: query.callback,
    },
    consentingOwner,
  );
}
