import {
  callbackPathBinding,
  randomBytesFromPool,
  sealAddressIn,
  walletPlatformFeeBps,
  type AffiliateTerms,
  type CallbackOwnership,
  type EvmAddress,
  type SealingKeyRing,
  type WalletRequest,
} from '@gateway/domain';
import type { DerivedAddress, NewWallet } from '@gateway/db/wallet-control';

export interface NewWalletSettings {
  keys: SealingKeyRing;
  /** The xpub's fingerprint: the key the wallet's address was derived from. */
  keyFingerprint: string;
  /** PLATFORM_FEE_BPS as it is now. */
  platformFeeBps: number;
  callbackOwnership?: CallbackOwnership;
}

/** The row a new wallet is inserted as: its address sealed, its token drawn, its terms fixed for good. */
export function newWalletRecord(
  request: WalletRequest,
  terms: AffiliateTerms | null,
  candidate: DerivedAddress,
  settings: NewWalletSettings,
): NewWallet {
  const merchantFeeBps = terms?.kind === 'custom' ? terms.merchantFeeBps : null;
  return {
    hdIndex: candidate.hdIndex,
    polygonAddress: candidate.polygonAddress,
    addressIn: sealAddressIn(candidate.polygonAddress as EvmAddress, settings.keys),
    payoutAddress: request.payoutAddress,
    callbackUrl: request.callbackUrl,
    dedupeKey: request.dedupeKey,
    // 192 random bits: support staff quote it, nobody can guess it.
    ipnToken: randomBytesFromPool(24).toString('base64url'),
    keyFingerprint: settings.keyFingerprint,
    orderToleranceBps: request.orderToleranceBps,
    customerPaysFee: request.customerPaysFee,
    affiliate: terms && { affiliateAddress: terms.address, affiliateFeeBps: terms.affiliateFeeBps, merchantFeeBps },
    // Recorded on the wallet: its deposits pay this, whatever PLATFORM_FEE_BPS says later.
    platformFeeBps: walletPlatformFeeBps({ affiliateFeeBps: terms?.affiliateFeeBps ?? null, merchantFeeBps }, settings.platformFeeBps),
    callbackPath:
      settings.callbackOwnership === 'shared'
        ? null
        : callbackPathBinding(request.callbackUrl, { payoutAddress: request.payoutAddress, affiliate: terms }),
  };
}
