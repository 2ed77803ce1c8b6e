import { LRUCache } from 'lru-cache';
import { getAddress } from 'viem';
import {
  affiliateConsentRefusal,
  affiliateConsentTerms,
  affiliateTermsOf,
  affiliateWalletsDisabled,
  callbackAddressPolicy,
  callbackOwnerRefusal,
  callbackPathBinding,
  callbackRegisteredElsewhere,
  openAddressIn,
  parseAffiliateWalletRequest,
  parseCustomAffiliateWalletRequest,
  parseWalletRequest,
  pinnedAddressRefusal,
  randomBytesFromPool,
  payoutToTemporaryWallet,
  sealAddressIn,
  type AddressPin,
  type AddressPolicy,
  type AffiliateTerms,
  type CallbackOwnership,
  type EvmAddress,
  type NewWalletAsk,
  type SealingKeyRing,
  type WalletRequest,
  walletPlatformFeeBps,
} from '@gateway/domain';
import {
  createBatcher,
  type CreateOrGetResult,
  type DerivedAddress,
  type NewWallet,
  type WalletRepository,
  type WalletRow,
} from '@gateway/db/wallet-control';
import type { AddressSupply } from './address-supply';
import type { NewWalletReading, PayoutQuota } from './payout-quota';

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
  /** PLATFORM_FEE_BPS: recorded on each new wallet; custom splits must leave exactly this for the platform. */
  platformFeeBps: number;
  /** AFFILIATE_SHARE_BPS: what affiliate.php wallets pay their affiliate. */
  affiliateShareBps: number;
  /** Production: https callbacks only. */
  requireHttps?: boolean;
  /** PAYOUT_ADDRESSES, AFFILIATE_ADDRESSES: the only addresses paid, when set. */
  pins?: { payout?: AddressPin; affiliate?: AddressPin };
  /** AFFILIATE_WALLETS=off: the affiliate endpoints refuse. Default on. */
  affiliateWallets?: boolean;
  /** The limits on new wallets (per payout address and origin, per client, across the gateway); none: no limits. */
  quota?: PayoutQuota;
  /** CALLBACK_OWNERSHIP: `path` (default) binds a callback's origin and path to its first wallet's terms; `shared` only the URL. */
  callbackOwnership?: CallbackOwnership;
}

/** What a repeat is answered with: the answer as it stands under the current key, and the terms it was created with. */
interface RememberedWallet {
  answer: WalletControlData;
  payoutAddress: string;
  terms: AffiliateTerms | null;
}

/** A wallet.php query parsed as it arrived, and its limits asked for unless the wallet is remembered (WalletService.prepare). */
export interface PreparedWalletRequest {
  query: { address: string; callback: string };
  request: WalletRequest;
  /** Its key in the memory of answered wallets. */
  key: string;
  limits: Promise<NewWalletReading> | undefined;
}

export interface CreatedWallet {
  data: WalletControlData;
  created: boolean;
}

function newWalletAsk(request: WalletRequest, client: string): NewWalletAsk {
  return { payoutAddress: request.payoutAddress, callbackUrl: request.callbackUrl, client };
}

// Concurrent requests share statements: a statement costs PostgreSQL far more than a row.
const BATCHING = { maxBatchSize: 64, maxInFlight: 4, lingerMs: 1 };
// Wallets this process answered recently (~0.5 KB each): plugins ask again for the same order.
const REMEMBERED_WALLETS = 20_000;
// A callback the operator released is answered from memory no longer than this by a replica that
// answered it before (release-callback, README): plugins ask again within seconds, not minutes.
const REMEMBERED_FOR_MS = 60_000;

/**
 * Create Wallet (spec 4.1), and its affiliate variants: one temporary wallet per callback URL,
 * owned by the first wallet registered with it, and (CALLBACK_OWNERSHIP=path) every wallet on a
 * callback's origin and path with the terms of the first (callback-ownership in @gateway/domain).
 * A repeat with the owner's payout address and terms gets the owner back, a new URL on the path
 * with them a new wallet; another payout address or other terms get a 409, never a second wallet
 * on the shop's callback or a changed split.
 */
export class WalletService {
  private readonly createOrGetWallet: (candidate: NewWallet) => Promise<CreateOrGetResult>;
  /** The callback-worker's address rule, for callbacks whose host is an IP literal. */
  private readonly addressPolicy: AddressPolicy;
  /** Opens only what the current key sealed: a stored address_in that does not is sealed again. */
  private readonly currentKeyOnly: SealingKeyRing;
  /**
   * A wallet never changes once created (its address, token, callback and split are fixed), so a
   * repeat this process has seen is answered from memory: no statement, no derivation.
   */
  private readonly remembered = new LRUCache<string, RememberedWallet>({ max: REMEMBERED_WALLETS, ttl: REMEMBERED_FOR_MS });

  constructor(private readonly deps: WalletServiceDeps) {
    // Requests are validated before they join a batch (a NUL, say, is a 400 of its own); a row
    // PostgreSQL still refuses fails alone, the batcher answering the rest of its batch.
    this.createOrGetWallet = createBatcher((candidates: NewWallet[]) => deps.wallets.createOrGetMany(candidates), BATCHING);
    this.addressPolicy = callbackAddressPolicy(deps.allowTestDomains, deps.callbackAllowedCidrs ?? []);
    this.currentKeyOnly = { current: deps.keys.current, byId: new Map([[deps.keys.current.id, deps.keys.current]]) };
  }

  /**
   * wallet.php, as the request arrives, before the rate limiter's round trip to Redis: a request
   * for a wallet this process does not remember asks for its quota now, so the answer comes back
   * beside the rate limiter's instead of in a round trip of its own after it. It refuses nothing:
   * createOrGet answers what is invalid, limited or over the quota, in the usual order.
   */
  prepare(query: { address?: unknown; callback?: unknown }, client: string): PreparedWalletRequest | undefined {
    const { address, callback } = query;
    if (typeof address !== 'string' || typeof callback !== 'string') return undefined;
    let request: WalletRequest;
    try {
      request = parseWalletRequest({ address, callback }, this.rules());
    } catch {
      return undefined;
    }
    const key = request.dedupeKey.toString('base64');
    const limits = this.remembered.has(key) ? undefined : this.deps.quota?.check(newWalletAsk(request, client), key);
    return { query: { address, callback }, request, key, limits };
  }

  /** wallet.php; `client`: rateLimitClientOf the request's address; `prepared`: what prepare() made of the same query. */
  createOrGet(query: { address: string; callback: string }, client: string, prepared?: PreparedWalletRequest): Promise<CreatedWallet> {
    if (prepared && prepared.query.address === query.address && prepared.query.callback === query.callback) {
      return this.createOrGetWith(prepared.request, null, client, prepared);
    }
    return this.createOrGetWith(parseWalletRequest(query, this.rules()), null, client);
  }

  /** affiliate.php: the affiliate earns the configured share (AFFILIATE_SHARE_BPS, recorded on the wallet). */
  async createOrGetAffiliate(
    query: { address: string; callback: string; affiliate: string; signature?: string },
    client: string,
  ): Promise<CreatedWallet> {
    if (this.deps.affiliateWallets === false) throw affiliateWalletsDisabled();
    const request = parseAffiliateWalletRequest(query, { ...this.rules(), affiliateShareBps: this.deps.affiliateShareBps });
    await this.assertAffiliateConsent(request, request.affiliate, query.signature);
    return this.createOrGetWith(request, request.affiliate, client);
  }

  /** custom-affiliate.php: merchant_fee + affiliate_fee = 1 − the platform fee, recorded on the wallet. */
  async createOrGetCustomAffiliate(
    query: { address: string; callback: string; affiliate: string; affiliate_fee: string; merchant_fee: string; signature?: string },
    client: string,
  ): Promise<CreatedWallet> {
    if (this.deps.affiliateWallets === false) throw affiliateWalletsDisabled();
    const request = parseCustomAffiliateWalletRequest(query, { ...this.rules(), platformFeeBps: this.deps.platformFeeBps });
    await this.assertAffiliateConsent(request, request.affiliate, query.signature);
    return this.createOrGetWith(request, request.affiliate, client);
  }

  /**
   * Affiliate terms only with consent (affiliate-consent in @gateway/domain), checked before any
   * wallet exists, also on a repeat: the operator's, when AFFILIATE_ADDRESSES pins the affiliate
   * (a pin leaves out every other affiliate, signed or not), else the payout address owner's signature.
   */
  private async assertAffiliateConsent(request: WalletRequest, terms: AffiliateTerms, signature: string | undefined): Promise<void> {
    const pin = this.deps.pins?.affiliate;
    const pinned =
      pinnedAddressRefusal(request.payoutAddress, this.deps.pins?.payout, 'address') ??
      pinnedAddressRefusal(terms.address, pin, 'affiliate');
    if (pinned) throw pinned;
    const refusal = await affiliateConsentRefusal(affiliateConsentTerms(request, terms, this.deps.platformFeeBps), {
      signature,
      operatorPinned: pin !== undefined,
    });
    if (refusal) throw refusal;
  }

  private rules() {
    return {
      tokenAddress: this.deps.tokenAddress,
      allowTestDomains: this.deps.allowTestDomains,
      requireHttps: this.deps.requireHttps ?? false,
      addressPolicy: this.addressPolicy,
    };
  }

  /** `prepared`: the request's key and limits' answer, when prepare() made them already. */
  private async createOrGetWith(
    request: WalletRequest,
    terms: AffiliateTerms | null,
    client: string,
    prepared?: Pick<PreparedWalletRequest, 'key' | 'limits'>,
  ): Promise<CreatedWallet> {
    const pinned = pinnedAddressRefusal(request.payoutAddress, this.deps.pins?.payout, 'address');
    if (pinned) throw pinned;
    const requested = { payoutAddress: request.payoutAddress, terms };
    const key = prepared?.key ?? request.dedupeKey.toString('base64');
    const known = this.remembered.get(key);
    if (known) return { created: false, data: this.answerRepeat(key, known, requested, { remember: false }) };
    // The limits on new wallets, asked while the address is derived; the payout and affiliate rule
    // (own-wallets in @gateway/domain) is the insert's own. A repeat answered from memory passed
    // them when it was created. An index taken for a refused request is handed out next (one lost
    // to an error is a harmless gap).
    const [reading, candidate] = await Promise.all([
      prepared?.limits ?? this.deps.quota?.check(newWalletAsk(request, client), key),
      this.deps.addresses.take(),
    ]);
    const admission = reading && this.deps.quota?.admit(reading);
    const refusal = admission?.refusal;
    if (refusal) {
      this.deps.addresses.giveBack(candidate);
      // Over the quota: a wallet that exists is still answered, only a new one waits; the
      // own-wallet rule still comes first.
      const [temporaryWallets, [owner]] = await Promise.all([
        this.deps.wallets.areTemporaryWallets(terms ? [request.payoutAddress, terms.address] : [request.payoutAddress]),
        this.deps.wallets.findOwners([request.callbackUrl]),
      ]);
      const temporaryWallet = temporaryWallets[0] ? 'address' : temporaryWallets[1] ? 'affiliate' : undefined;
      if (temporaryWallet) throw payoutToTemporaryWallet(temporaryWallet);
      if (owner) return { created: false, data: this.answerRepeat(key, this.walletOf(owner, false), requested) };
      this.deps.quota?.refused(refusal);
      throw refusal;
    }
    // Admitted: the place held in the limits is given up, or counted once the wallet exists.
    let created = false;
    try {
      const outcome = await this.insertWallet(request, terms, candidate, key);
      created = outcome.created;
      return outcome;
    } finally {
      admission?.settle(created);
    }
  }

  private async insertWallet(
    request: WalletRequest,
    terms: AffiliateTerms | null,
    candidate: DerivedAddress,
    key: string,
  ): Promise<CreatedWallet> {
    const result = await this.createOrGetWallet({
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
      // Recorded on the wallet: its deposits pay this, whatever PLATFORM_FEE_BPS says later.
      platformFeeBps: walletPlatformFeeBps(
        { affiliateFeeBps: terms?.affiliateFeeBps ?? null, merchantFeeBps: terms?.kind === 'custom' ? terms.merchantFeeBps : null },
        this.deps.platformFeeBps,
      ),
      callbackPath:
        this.deps.callbackOwnership === 'shared'
          ? null
          : callbackPathBinding(request.callbackUrl, { payoutAddress: request.payoutAddress, affiliate: terms }),
    }).catch((error: unknown) => {
      this.deps.addresses.giveBack(candidate);
      throw error;
    });
    if ('temporaryWallet' in result) {
      this.deps.addresses.giveBack(candidate);
      throw payoutToTemporaryWallet(result.temporaryWallet);
    }
    if ('pathOwner' in result) {
      // The URL is new, but its origin and path are claimed for other terms: never remembered, so
      // a path the operator releases is free at once.
      this.deps.addresses.giveBack(candidate);
      const owner = { payoutAddress: result.pathOwner.payoutAddress, affiliate: affiliateTermsOf(result.pathOwner) };
      throw callbackOwnerRefusal({ payoutAddress: request.payoutAddress, affiliate: terms }, owner) ?? callbackRegisteredElsewhere();
    }
    const { row, created } = result;
    if (!created) this.deps.addresses.giveBack(candidate);
    const wallet = this.walletOf(row, created, created ? candidate.polygonAddress : undefined);
    if (created) {
      this.remembered.set(key, wallet);
      return { created, data: wallet.answer };
    }
    return { created, data: this.answerRepeat(key, wallet, { payoutAddress: request.payoutAddress, terms }) };
  }

  /**
   * What a request for this wallet is answered with. `derivedAddress`: the checksummed address just
   * derived for a new wallet (it saves a keccak).
   */
  private walletOf(row: WalletRow, created: boolean, derivedAddress?: string): RememberedWallet {
    return {
      answer: {
        address_in: created ? row.addressIn : this.addressInUnderCurrentKey(row),
        polygon_address_in: derivedAddress ?? getAddress(row.polygonAddress),
        callback_url: row.callbackUrl,
        ipn_token: row.ipnToken,
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
  private answerRepeat(
    key: string,
    wallet: RememberedWallet,
    requested: { payoutAddress: string; terms: AffiliateTerms | null },
    { remember = true } = {},
  ): WalletControlData {
    const refusal = callbackOwnerRefusal(
      { payoutAddress: requested.payoutAddress, affiliate: requested.terms },
      { payoutAddress: wallet.payoutAddress, affiliate: wallet.terms },
    );
    if (refusal) throw refusal;
    // Set once, not on every hit, so the entry still expires (REMEMBERED_FOR_MS) however often it is asked for.
    if (remember) this.remembered.set(key, wallet);
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
