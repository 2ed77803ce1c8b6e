import {
  affiliateTermsOf,
  affiliateWalletsDisabled,
  callbackAddressPolicy,
  callbackOwnerRefusal,
  callbackRegisteredElsewhere,
  parseAffiliateWalletRequest,
  parseCustomAffiliateWalletRequest,
  parseWalletRequest,
  pinnedAddressRefusal,
  payoutToTemporaryWallet,
  type AddressPin,
  type AffiliateTerms,
  type AffiliateWalletRequest,
  type CallbackOwnership,
  type EvmAddress,
  type NewWalletAsk,
  type SealingKeyRing,
  type WalletRequest,
  type WalletRequestRules,
} from '@gateway/domain';
import {
  createBatcher,
  type CreateOrGetResult,
  type DerivedAddress,
  type NewWallet,
  type WalletRepository,
} from '@gateway/db/wallet-control';
import type { AddressSupply } from './address-supply';
import { assertAffiliateConsent } from './affiliate-consent';
import { KnownWallets, type IssuedWallet } from './known-wallets';
import { newWalletRecord } from './new-wallet-record';
import type { NewWalletReading, PayoutQuota } from './payout-quota';

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

/** A wallet.php query parsed as it arrived, and its limits asked for unless the wallet is remembered (WalletService.prepare). */
export interface PreparedWalletRequest {
  query: { address: string; callback: string; order_tolerance_bps: string | undefined; customer_pays_fee: string | undefined };
  request: WalletRequest;
  /** Its key in the memory of answered wallets. */
  key: string;
  limits: Promise<NewWalletReading> | undefined;
}

export interface CreatedWallet {
  wallet: IssuedWallet;
  created: boolean;
}

function newWalletAsk(request: WalletRequest, client: string): NewWalletAsk {
  return { payoutAddress: request.payoutAddress, callbackUrl: request.callbackUrl, client };
}

// Concurrent requests share statements: a statement costs PostgreSQL far more than a row.
const BATCHING = { maxBatchSize: 64, maxInFlight: 4, lingerMs: 1 };

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
  /** What a request must be; the address policy is the callback-worker's rule for callbacks whose host is an IP literal. */
  private readonly rules: WalletRequestRules;
  private readonly known: KnownWallets;

  constructor(private readonly deps: WalletServiceDeps) {
    // Requests are validated before they join a batch (a NUL, say, is a 400 of its own); a row
    // PostgreSQL still refuses fails alone, the batcher answering the rest of its batch.
    this.createOrGetWallet = createBatcher((candidates: NewWallet[]) => deps.wallets.createOrGetMany(candidates), BATCHING);
    this.rules = {
      tokenAddress: deps.tokenAddress,
      allowTestDomains: deps.allowTestDomains,
      requireHttps: deps.requireHttps ?? false,
      addressPolicy: callbackAddressPolicy(deps.allowTestDomains, deps.callbackAllowedCidrs ?? []),
    };
    this.known = new KnownWallets(deps.keys);
  }

  /**
   * wallet.php, as the request arrives, before the rate limiter's round trip to Redis: a request
   * for a wallet this process does not remember asks for its quota now, so the answer comes back
   * beside the rate limiter's instead of in a round trip of its own after it. It refuses nothing:
   * createOrGet answers what is invalid, limited or over the quota, in the usual order.
   */
  prepare(
    query: { address?: unknown; callback?: unknown; order_tolerance_bps?: unknown; customer_pays_fee?: unknown },
    client: string,
  ): PreparedWalletRequest | undefined {
    const { address, callback, order_tolerance_bps: tolerance, customer_pays_fee: customerPaysFee } = query;
    if (typeof address !== 'string' || typeof callback !== 'string') return undefined;
    if (tolerance !== undefined && typeof tolerance !== 'string') return undefined;
    if (customerPaysFee !== undefined && typeof customerPaysFee !== 'string') return undefined;
    let request: WalletRequest;
    try {
      request = parseWalletRequest(
        {
          address,
          callback,
          ...(tolerance !== undefined ? { order_tolerance_bps: tolerance } : {}),
          ...(customerPaysFee !== undefined ? { customer_pays_fee: customerPaysFee } : {}),
        },
        this.rules,
      );
    } catch {
      return undefined;
    }
    const key = request.dedupeKey.toString('base64');
    const limits = this.known.has(key) ? undefined : this.deps.quota?.check(newWalletAsk(request, client), key);
    return { query: { address, callback, order_tolerance_bps: tolerance, customer_pays_fee: customerPaysFee }, request, key, limits };
  }

  /** wallet.php; `client`: rateLimitClientOf the request's address; `prepared`: what prepare() made of the same query. */
  createOrGet(
    query: { address: string; callback: string; order_tolerance_bps?: string; customer_pays_fee?: string },
    client: string,
    prepared?: PreparedWalletRequest,
  ): Promise<CreatedWallet> {
    const asked = prepared?.query;
    if (
      prepared &&
      asked?.address === query.address &&
      asked.callback === query.callback &&
      asked.order_tolerance_bps === query.order_tolerance_bps &&
      asked.customer_pays_fee === query.customer_pays_fee
    ) {
      return this.createOrGetWith(prepared.request, null, client, prepared);
    }
    return this.createOrGetWith(parseWalletRequest(query, this.rules), null, client);
  }

  /** affiliate.php: the affiliate earns the configured share (AFFILIATE_SHARE_BPS, recorded on the wallet). */
  createOrGetAffiliate(
    query: { address: string; callback: string; affiliate: string; signature?: string },
    client: string,
  ): Promise<CreatedWallet> {
    return this.createOrGetWithConsent(query.signature, client, () =>
      parseAffiliateWalletRequest(query, { ...this.rules, affiliateShareBps: this.deps.affiliateShareBps }),
    );
  }

  /** custom-affiliate.php: merchant_fee + affiliate_fee = 1 − the platform fee, recorded on the wallet. */
  createOrGetCustomAffiliate(
    query: { address: string; callback: string; affiliate: string; affiliate_fee: string; merchant_fee: string; signature?: string },
    client: string,
  ): Promise<CreatedWallet> {
    return this.createOrGetWithConsent(query.signature, client, () =>
      parseCustomAffiliateWalletRequest(query, { ...this.rules, platformFeeBps: this.deps.platformFeeBps }),
    );
  }

  /** An affiliate wallet: refused while AFFILIATE_WALLETS=off, and without consent to its terms. */
  private async createOrGetWithConsent(
    signature: string | undefined,
    client: string,
    parse: () => AffiliateWalletRequest,
  ): Promise<CreatedWallet> {
    if (this.deps.affiliateWallets === false) throw affiliateWalletsDisabled();
    const request = parse();
    await assertAffiliateConsent(request, request.affiliate, signature, this.deps);
    return this.createOrGetWith(request, request.affiliate, client);
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
    const known = this.known.recall(key);
    if (known) return { created: false, wallet: this.known.answerRepeat(key, known, requested, { remember: false }) };
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
      if (owner) return { created: false, wallet: this.known.answerRepeat(key, this.known.fromRow(owner, false), requested) };
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
    const record = newWalletRecord(request, terms, candidate, { ...this.deps, keyFingerprint: this.deps.addresses.keyFingerprint });
    const result = await this.createOrGetWallet(record).catch((error: unknown) => {
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
    const wallet = this.known.fromRow(row, created, created ? candidate.polygonAddress : undefined);
    if (created) {
      this.known.remember(key, wallet);
      return { created, wallet: wallet.issued };
    }
    return { created, wallet: this.known.answerRepeat(key, wallet, { payoutAddress: request.payoutAddress, terms }) };
  }
}
