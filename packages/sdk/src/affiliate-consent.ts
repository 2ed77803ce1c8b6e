// The consent a payout address's owner gives to affiliate terms (affiliate.php, custom-affiliate.php):
// an EIP-191 personal_sign, by the payout address's key, of the message below. The gateway builds
// the same text (affiliateConsentMessage in @gateway/domain); this copy keeps the SDK free of
// dependencies and is tested against it. Change both together, with a new version line.

export const AFFILIATE_CONSENT_PURPOSE = 'Card-to-USDC gateway: consent to affiliate terms (v1)';

export interface AffiliateConsentInput {
  /** The payout address (Create Wallet's `address`), any case. */
  payoutAddress: string;
  /** The affiliate's address, any case. */
  affiliateAddress: string;
  /**
   * The payout address's share as a decimal fraction, as the request sends it ("0.98"). For
   * affiliate.php: 1 minus the platform fee minus the configured affiliate share.
   */
  merchantFee: string;
  /** The affiliate's share ("0.01"). For affiliate.php: the configured share (AFFILIATE_SHARE_BPS / 10000). */
  affiliateFee: string;
  /** The callback URL exactly as it is registered (decoded, as Create Wallet's callback_url). */
  callbackUrl: string;
}

/** What signs: a viem LocalAccount, or a WalletClient with its account set, fits. */
export interface PersonalMessageSigner {
  signMessage(args: { message: string }): Promise<string>;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const FEE = /^(\d{1,3})(?:\.(\d{1,12}))?$/;

/** The exact text to sign, lines joined by "\n". Throws a RangeError for an address or fee the gateway would refuse. */
export function affiliateConsentMessage(input: AffiliateConsentInput): string {
  return [
    AFFILIATE_CONSENT_PURPOSE,
    `payout: ${address(input.payoutAddress, 'payoutAddress')}`,
    `affiliate: ${address(input.affiliateAddress, 'affiliateAddress')}`,
    `merchant_fee: ${fee(input.merchantFee, 'merchantFee')}`,
    `affiliate_fee: ${fee(input.affiliateFee, 'affiliateFee')}`,
    `callback: ${input.callbackUrl}`,
  ].join('\n');
}

/** The `signature` parameter of affiliate.php / custom-affiliate.php: `signer` must hold the payout address's key. */
export function signAffiliateConsent(input: AffiliateConsentInput, signer: PersonalMessageSigner): Promise<string> {
  return signer.signMessage({ message: affiliateConsentMessage(input) });
}

function address(value: string, name: string): string {
  if (!ADDRESS.test(value)) throw new RangeError(`${name} must be 0x followed by 40 hexadecimal characters`);
  return value.toLowerCase();
}

/** As the gateway writes a fee: at most 4 decimals, no trailing zeros ("0.9800" → "0.98", "1.0" → "1"). */
function fee(value: string, name: string): string {
  const match = FEE.exec(value);
  const fraction = (match?.[2] ?? '').replace(/0+$/, '');
  const whole = match === null ? Number.NaN : Number(match[1]);
  if (match === null || fraction.length > 4 || whole > 1 || (whole === 1 && fraction !== '')) {
    throw new RangeError(`${name} must be a decimal fraction between 0 and 1 with at most 4 decimals, e.g. 0.98`);
  }
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
}
