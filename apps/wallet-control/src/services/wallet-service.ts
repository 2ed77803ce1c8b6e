import { LRUCache } from 'lru-cache';
import { getAddress } from 'viem';
import {
  affiliateTermsConflict,
  affiliateTermsOf,
  callbackAddressPolicy,
  openAddressIn,
  parseAffiliateWalletRequest,
  parseCustomAffiliateWalletRequest,
  parseWalletRequest,
  randomBytesFromPool,
  payoutToTemporaryWallet,
  sameAffiliateTerms,
  sealAddressIn,
  type AddressPolicy,
  type AffiliateTerms,
  type EvmAddress,
  type SealingKeyRing,
  type WalletRequest,
} from '@gateway/domain';
import { createBatcher, type NewWallet, type WalletRepository, type WalletRow } from '@gateway/db';
import type { AddressSupply } from './address-supply';

export interface WalletControlData {
  address_in: string;
  polygon_address_in: string;
  callback_url: string;
  ipn_token: string;
}

export interface WalletServiceDeps {
  wallets: WalletRepository;
  addresses: AddressSupply;
  keys: SealingKeyRing;
  tokenAddress: EvmAddress;
  allowTestDomains: boolean;
  /** CALLBACK_ALLOWED_CIDRS: the ranges the callback-worker is told to exempt (checked by the config). */
  callbackAllowedCidrs?: readonly string[];
  /** PLATFORM_FEE_BPS: custom splits must leave exactly this for the platform. */
  platformFeeBps: number;
  /** AFFILIATE_SHARE_BPS: what affiliate.php wallets pay their affiliate. */
  affiliateShareBps: number;
}

/** What a repeat is answered with: the answer as it stands under the current key, and the split it was created with. */
interface RememberedWallet {
  answer: WalletControlData;
  terms: AffiliateTerms | null;
}

export interface CreatedWallet {
  data: WalletControlData;
  created: boolean;
}

// Concurrent requests share statements: a statement costs PostgreSQL far more than a row.
const BATCHING = { maxBatchSize: 64, maxInFlight: 4, lingerMs: 1 };
// Wallets this process answered recently (~0.5 KB each): plugins ask again for the same order.
const REMEMBERED_WALLETS = 20_000;

/**
 * Create Wallet (spec 4.1), and its affiliate variants: one temporary wallet per (payout address,
 * callback URL). The affiliate terms are part of the wallet, not of its identity: a repeat with
 * other terms for the same pair gets a 409, never a second wallet or a changed split.
 */
export class WalletService {
  private readonly createOrGetWallet: (candidate: NewWallet) => Promise<{ row: WalletRow; created: boolean }>;
  /** Whether a payout address is one of this gateway's temporary wallets (batched like the inserts). */
  private readonly isTemporaryWallet: (address: string) => Promise<boolean>;
  /** The callback-worker's address rule, for callbacks whose host is an IP literal. */
  private readonly addressPolicy: AddressPolicy;
  /** Opens only what the current key sealed: a stored address_in that does not is sealed again. */
  private readonly currentKeyOnly: SealingKeyRing;
  /**
   * A wallet never changes once created (its address, token, callback and split are fixed), so a
   * repeat this process has seen is answered from memory: no statement, no derivation.
   */
  private readonly remembered = new LRUCache<string, RememberedWallet>({ max: REMEMBERED_WALLETS });

  constructor(private readonly deps: WalletServiceDeps) {
    // Requests are validated before they join a batch (a NUL, say, is a 400 of its own); a row
    // PostgreSQL still refuses fails alone, the batcher answering the rest of its batch.
    this.createOrGetWallet = createBatcher((candidates: NewWallet[]) => deps.wallets.createOrGetMany(candidates), BATCHING);
    this.isTemporaryWallet = createBatcher((addresses: string[]) => deps.wallets.areTemporaryWallets(addresses), BATCHING);
    this.addressPolicy = callbackAddressPolicy(deps.allowTestDomains, deps.callbackAllowedCidrs ?? []);
    this.currentKeyOnly = { current: deps.keys.current, byId: new Map([[deps.keys.current.id, deps.keys.current]]) };
  }

  /** wallet.php */
  createOrGet(query: { address: string; callback: string }): Promise<CreatedWallet> {
    return this.createOrGetWith(parseWalletRequest(query, this.rules()), null);
  }

  /** affiliate.php: the affiliate earns the configured share (AFFILIATE_SHARE_BPS, recorded on the wallet). */
  createOrGetAffiliate(query: { address: string; callback: string; affiliate: string }): Promise<CreatedWallet> {
    const request = parseAffiliateWalletRequest(query, { ...this.rules(), affiliateShareBps: this.deps.affiliateShareBps });
    return this.createOrGetWith(request, request.affiliate);
  }

  /** custom-affiliate.php: merchant_fee + affiliate_fee = 1 − the platform fee, recorded on the wallet. */
  createOrGetCustomAffiliate(query: {
    address: string;
    callback: string;
    affiliate: string;
    affiliate_fee: string;
    merchant_fee: string;
  }): Promise<CreatedWallet> {
    const request = parseCustomAffiliateWalletRequest(query, { ...this.rules(), platformFeeBps: this.deps.platformFeeBps });
    return this.createOrGetWith(request, request.affiliate);
  }

  private rules() {
    return { tokenAddress: this.deps.tokenAddress, allowTestDomains: this.deps.allowTestDomains, addressPolicy: this.addressPolicy };
  }

  private async createOrGetWith(request: WalletRequest, terms: AffiliateTerms | null): Promise<CreatedWallet> {
    const key = request.dedupeKey.toString('base64');
    const known = this.remembered.get(key);
    if (known) return { created: false, data: this.answerRepeat(known, terms) };
    // Payout rule (own-wallets in @gateway/domain), asked while the address is derived; a repeat
    // answered from memory passed it when it was created. An index taken for a refused request is
    // handed out next (one lost to an error is a harmless gap).
    const [payoutIsTemporaryWallet, candidate] = await Promise.all([this.isTemporaryWallet(request.payoutAddress), this.deps.addresses.take()]);
    if (payoutIsTemporaryWallet) {
      this.deps.addresses.giveBack(candidate);
      throw payoutToTemporaryWallet();
    }
    const { row, created } = await this.createOrGetWallet({
        hdIndex: candidate.hdIndex,
        polygonAddress: candidate.polygonAddress,
        addressIn: sealAddressIn(candidate.polygonAddress as EvmAddress, this.deps.keys),
        payoutAddress: request.payoutAddress,
        callbackUrl: request.callbackUrl,
        dedupeKey: request.dedupeKey,
        // 192 random bits: support staff quote it, nobody can guess it.
        ipnToken: randomBytesFromPool(24).toString('base64url'),
        keyFingerprint: this.deps.addresses.keyFingerprint,
        affiliate: terms && {
          affiliateAddress: terms.address,
          affiliateFeeBps: terms.affiliateFeeBps,
          merchantFeeBps: terms.kind === 'custom' ? terms.merchantFeeBps : null,
        },
      }).catch((error: unknown) => {
        this.deps.addresses.giveBack(candidate);
        throw error;
      });
    if (!created) this.deps.addresses.giveBack(candidate);
    const wallet: RememberedWallet = {
      answer: {
        address_in: created ? row.addressIn : this.addressInUnderCurrentKey(row),
        polygon_address_in: created ? candidate.polygonAddress : getAddress(row.polygonAddress),
        callback_url: row.callbackUrl,
        ipn_token: row.ipnToken,
      },
      terms: affiliateTermsOf(row),
    };
    this.remembered.set(key, wallet);
    return created ? { created, data: wallet.answer } : { created, data: this.answerRepeat(wallet, terms) };
  }

  /** The pair existed (or an identical request won the race): same terms, same wallet; other terms, 409. */
  private answerRepeat(wallet: RememberedWallet, terms: AffiliateTerms | null): WalletControlData {
    if (!sameAffiliateTerms(terms, wallet.terms)) throw affiliateTermsConflict(wallet.terms);
    return wallet.answer;
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
    return sealAddressIn(row.polygonAddress.toLowerCase() as EvmAddress, this.deps.keys);
  }
}
