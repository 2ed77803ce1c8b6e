import { LRUCache } from 'lru-cache';
import { getAddress } from 'viem';
import {
  affiliateTermsOf,
  callbackOwnerRefusal,
  openAddressIn,
  sealAddressIn,
  type AffiliateTerms,
  type EvmAddress,
  type SealingKeyRing,
} from '@gateway/domain';
import type { WalletRow } from '@gateway/db/wallet-control';

/** A temporary wallet as a request for it is answered (the route's view model words it). */
export interface IssuedWallet {
  /** Sealed with the current key. */
  addressIn: string;
  /** EIP-55. */
  polygonAddress: string;
  callbackUrl: string;
  ipnToken: string;
}

/** What a repeat is answered with: the wallet as it stands under the current key, and the terms it was created with. */
export interface KnownWallet {
  issued: IssuedWallet;
  payoutAddress: string;
  terms: AffiliateTerms | null;
}

/** What a request asks a wallet for: the payout address and the affiliate terms (or none). */
export interface RequestedTerms {
  payoutAddress: string;
  terms: AffiliateTerms | null;
}

// Wallets this process answered recently (~0.5 KB each): plugins ask again for the same order.
const REMEMBERED_WALLETS = 20_000;
// A callback the operator released is answered from memory no longer than this by a replica that
// answered it before (release-callback, README): plugins ask again within seconds, not minutes.
const REMEMBERED_FOR_MS = 60_000;

/**
 * The wallets that exist, as a repeat is answered: read back from their row, or from memory. A
 * wallet never changes once created (its address, token, callback and split are fixed), so a
 * repeat this process has seen is answered from memory: no statement, no derivation.
 */
export class KnownWallets {
  private readonly remembered = new LRUCache<string, KnownWallet>({ max: REMEMBERED_WALLETS, ttl: REMEMBERED_FOR_MS });
  /** Opens only what the current key sealed: a stored address_in that does not is sealed again. */
  private readonly currentKeyOnly: SealingKeyRing;

  constructor(private readonly keys: SealingKeyRing) {
    this.currentKeyOnly = { current: keys.current, byId: new Map([[keys.current.id, keys.current]]) };
  }

  /** `key`: the request's dedupe key (base64). */
  has(key: string): boolean {
    return this.remembered.has(key);
  }

  recall(key: string): KnownWallet | undefined {
    return this.remembered.get(key);
  }

  /** A wallet just created: its first answer is remembered for its repeats. */
  remember(key: string, wallet: KnownWallet): void {
    this.remembered.set(key, wallet);
  }

  /**
   * What a request for this wallet is answered with. `derivedAddress`: the checksummed address just
   * derived for a new wallet (it saves a keccak).
   */
  fromRow(row: WalletRow, created: boolean, derivedAddress?: string): KnownWallet {
    return {
      issued: {
        addressIn: created ? row.addressIn : this.addressInUnderCurrentKey(row),
        polygonAddress: derivedAddress ?? getAddress(row.polygonAddress),
        callbackUrl: row.callbackUrl,
        ipnToken: row.ipnToken,
      },
      payoutAddress: row.payoutAddress,
      terms: affiliateTermsOf(row),
    };
  }

  /**
   * The callback had an owner (or an identical request won the race): the owner's own payout
   * address and terms get it, and it is remembered for their repeats; anything else gets a 409 and
   * is not remembered, so a callback the operator releases is free at once for a new owner.
   */
  answerRepeat(key: string, wallet: KnownWallet, requested: RequestedTerms, { remember = true } = {}): IssuedWallet {
    const refusal = callbackOwnerRefusal(
      { payoutAddress: requested.payoutAddress, affiliate: requested.terms },
      { payoutAddress: wallet.payoutAddress, affiliate: wallet.terms },
    );
    if (refusal) throw refusal;
    // Set once, not on every hit, so the entry still expires (REMEMBERED_FOR_MS) however often it is asked for.
    if (remember) this.remembered.set(key, wallet);
    return wallet.issued;
  }

  /**
   * A repeat answers an address_in the current key opens. The stored one is kept as issued; while it
   * was sealed with the current key it is answered as is (the same bytes on every repeat), and once
   * the keys have rotated it is sealed again, so retiring an old key never breaks an old wallet for
   * a merchant who asks for it again. Tokens already handed out under the old key still open as long
   * as ADDRESS_IN_KEYS lists that key.
   */
  private addressInUnderCurrentKey(row: WalletRow): string {
    if (openAddressIn(row.addressIn, this.currentKeyOnly) === row.polygonAddress.toLowerCase()) return row.addressIn;
    return sealAddressIn(row.polygonAddress.toLowerCase() as EvmAddress, this.keys);
  }
}
