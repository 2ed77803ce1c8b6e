import type { Pool } from 'pg';

/** What Create Wallet answers with, and the payout address and affiliate terms a repeat is compared against. */
export interface WalletRow {
  polygonAddress: string;
  addressIn: string;
  /** Lower-case hex. */
  payoutAddress: string;
  callbackUrl: string;
  ipnToken: string;
  /** Lower-case hex; null for a wallet without an affiliate. */
  affiliateAddress: string | null;
  affiliateFeeBps: number | null;
  /** Set only for a custom split (custom-affiliate.php). */
  merchantFeeBps: number | null;
}

/** A new wallet's affiliate terms (see AffiliateRecord in @gateway/domain). */
export interface NewWalletAffiliate {
  /** Any case; stored lower-case. */
  affiliateAddress: string;
  affiliateFeeBps: number;
  merchantFeeBps: number | null;
}

export interface NewWallet {
  hdIndex: bigint;
  polygonAddress: string;
  addressIn: string;
  payoutAddress: string;
  callbackUrl: string;
  dedupeKey: Buffer;
  ipnToken: string;
  /** Fingerprint of the HD key that derived `polygonAddress` (registered in hd_keys). */
  keyFingerprint: string;
  /** Absent or null: no affiliate (wallet.php). */
  affiliate?: NewWalletAffiliate | null;
  /** Create Wallet's order_tolerance_bps; absent or null: the operator's tolerance judges its order. */
  orderToleranceBps?: number | null;
  /** Create Wallet's customer_pays_fee; absent or null: the operator's CUSTOMER_PAYS_FEES decides who pays its fees. */
  customerPaysFee?: boolean | null;
  /** The platform's share of its deposits (walletPlatformFeeBps in @gateway/domain): settlement pays what the wallet records. */
  platformFeeBps: number;
  /**
   * CALLBACK_OWNERSHIP=path: the callback's origin and path, claimed for these terms by the first
   * wallet on them (callbackPathBinding in @gateway/domain). Absent or null: not bound (`shared`).
   */
  callbackPath?: { key: Buffer; path: string; terms: string } | null;
}

/** The live claim on a callback's origin and path: the terms every wallet on it has (migration 017). */
export interface CallbackPathOwner {
  /** Lower-case hex. */
  payoutAddress: string;
  affiliateAddress: string | null;
  affiliateFeeBps: number | null;
  merchantFeeBps: number | null;
}

/**
 * What a candidate got: its wallet (new, or the one its URL had), the claim on its path, which has
 * other terms, or nothing because its payout (`address`) or affiliate address is one of this
 * gateway's temporary wallets (payoutToTemporaryWallet in @gateway/domain).
 */
export type CreateOrGetResult =
  | { row: WalletRow; created: boolean }
  | { pathOwner: CallbackPathOwner }
  | { temporaryWallet: 'address' | 'affiliate' };

export interface DerivedAddress {
  hdIndex: bigint;
  /** EIP-55 checksummed, as derived: kept so that answering with it costs no second keccak. */
  polygonAddress: string;
}

/** A wallet whose callback an operator released (gateway callbacks release), or migration 013 did. */
export interface ReleasedWallet {
  polygonAddress: string;
  payoutAddress: string;
  callbackUrl: string;
  releasedAt: Date;
}

// The first wallet of a batch is retried once when a concurrent request claimed its path with the
// same terms after this statement's snapshot (it could not see the claim, so it did not insert).
const CLAIM_ATTEMPTS = 2;

/** A candidate of createOrGetMany refused by the own-wallet rule: its place in the batch (from 1) and the address at fault. */
interface OwnWalletRow {
  callbackUrl: string;
  ownWallet: 'address' | 'affiliate';
  ord: string;
}

const COLUMNS = `polygon_address AS "polygonAddress", address_in AS "addressIn", payout_address AS "payoutAddress",
  callback_url AS "callbackUrl", ipn_token AS "ipnToken", affiliate_address AS "affiliateAddress",
  affiliate_fee_bps AS "affiliateFeeBps", merchant_fee_bps AS "merchantFeeBps"`;

export class WalletRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Returns the wallet that owns each candidate's callback URL, creating it from the candidate when
   * no live wallet has that URL and the candidate's callback path (when bound) is claimed for its
   * terms or free, in one statement for the whole batch (concurrent Create Wallet calls are batched:
   * a statement costs PostgreSQL far more than a row). `created` tells whether that candidate's
   * address was used; candidates with one URL in one batch get one wallet. An existing wallet is
   * returned as it is, with its own payout address and affiliate terms, which may differ from the
   * candidate's: the caller compares them (callbackOwnerRefusal in @gateway/domain). A candidate
   * whose URL is free but whose path is claimed for other terms gets that claim (`pathOwner`). A
   * candidate paying one of this gateway's temporary wallets (as payout or affiliate address) gets
   * `temporaryWallet` whatever its URL has, and claims and creates nothing.
   */
  async createOrGetMany(candidates: readonly NewWallet[], attempt = 1): Promise<CreateOrGetResult[]> {
    // New callbacks are the common case: claim and insert first, and read back only what had an
    // owner. The own-wallet rule, the path claim, the claims read and the insert are one statement;
    // the insert skips a candidate whose path is claimed for other terms. No conflict target on
    // wallets: a live wallet with the URL (wallets_callback_owner_idx) or the same pair (dedupe_key)
    // both mean "it exists"; a concurrent insert of the URL (or claim of the path) is waited for,
    // then seen below. The rule probes the unique index on polygon_address once per address (a
    // LATERAL ... LIMIT 1): the generic plan cached on a fresh deployment's never-analyzed table
    // keeps the probe, where `= ANY(...)` became a scan of the whole table (areTemporaryWallets),
    // and statistics that (auto)analyze updates make PostgreSQL plan the statement again.
    const { rows } = await this.pool.query<(WalletRow & { hdIndex: string | null; ownWallet: null; ord: null }) | OwnWalletRow>({
      name: 'wallet-insert-many',
      text: `WITH c AS (
               SELECT u.*, CASE WHEN pay.hit THEN 'address' WHEN aff.hit THEN 'affiliate' END AS own_wallet
               FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::text[],
                           $8::text[], $9::int[], $10::int[], $11::text[], $12::int[], $13::bytea[], $14::text[], $15::text[], $16::int[], $17::bool[])
                 WITH ORDINALITY AS u(hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token,
                                      affiliate_address, affiliate_fee_bps, merchant_fee_bps, key_fingerprint, platform_fee_bps,
                                      path_key, callback_path, terms, order_tolerance_bps, customer_pays_fee, ord)
               LEFT JOIN LATERAL (SELECT true AS hit FROM wallets w WHERE w.polygon_address = u.payout_address LIMIT 1) pay ON true
               LEFT JOIN LATERAL (SELECT true AS hit FROM wallets w WHERE w.polygon_address = u.affiliate_address LIMIT 1) aff ON true),
             claimed AS (
               INSERT INTO callback_paths (path_key, callback_path, terms,
                                           payout_address, affiliate_address, affiliate_fee_bps, merchant_fee_bps)
               SELECT DISTINCT ON (path_key) path_key, callback_path, terms,
                                             payout_address, affiliate_address, affiliate_fee_bps, merchant_fee_bps
               FROM c WHERE path_key IS NOT NULL AND own_wallet IS NULL ORDER BY path_key, ord
               ON CONFLICT (path_key) WHERE released_at IS NULL DO NOTHING
               RETURNING id, path_key, terms),
             claims AS (
               SELECT id, path_key, terms FROM claimed
               UNION ALL
               SELECT p.id, p.path_key, p.terms FROM callback_paths p
               WHERE p.released_at IS NULL AND p.path_key IN (SELECT path_key FROM c WHERE path_key IS NOT NULL AND own_wallet IS NULL)),
             inserted AS (
               INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token,
                                    affiliate_address, affiliate_fee_bps, merchant_fee_bps, key_fingerprint, platform_fee_bps,
                                    callback_path_id, callback_terms, order_tolerance_bps, customer_pays_fee)
               SELECT c.hd_index, c.polygon_address, c.address_in, c.payout_address, c.callback_url, c.dedupe_key, c.ipn_token,
                      c.affiliate_address, c.affiliate_fee_bps, c.merchant_fee_bps, c.key_fingerprint, c.platform_fee_bps,
                      claims.id, claims.terms, c.order_tolerance_bps, c.customer_pays_fee
               FROM c LEFT JOIN claims ON claims.path_key = c.path_key AND claims.terms = c.terms
               WHERE c.own_wallet IS NULL AND (c.path_key IS NULL OR claims.id IS NOT NULL)
               ORDER BY c.ord
               ON CONFLICT DO NOTHING
               RETURNING ${COLUMNS}, hd_index::text AS "hdIndex")
             SELECT *, NULL AS "ownWallet", NULL::bigint AS ord FROM inserted
             UNION ALL
             SELECT NULL, NULL, NULL, callback_url, NULL, NULL, NULL, NULL, NULL, own_wallet, ord FROM c WHERE own_wallet IS NOT NULL`,
      values: [
        candidates.map((c) => c.hdIndex.toString()),
        candidates.map((c) => c.polygonAddress.toLowerCase()),
        candidates.map((c) => c.addressIn),
        candidates.map((c) => c.payoutAddress.toLowerCase()),
        candidates.map((c) => c.callbackUrl),
        candidates.map((c) => c.dedupeKey),
        candidates.map((c) => c.ipnToken),
        candidates.map((c) => c.affiliate?.affiliateAddress.toLowerCase() ?? null),
        candidates.map((c) => c.affiliate?.affiliateFeeBps ?? null),
        candidates.map((c) => c.affiliate?.merchantFeeBps ?? null),
        candidates.map((c) => c.keyFingerprint),
        candidates.map((c) => c.platformFeeBps),
        candidates.map((c) => c.callbackPath?.key ?? null),
        candidates.map((c) => c.callbackPath?.path ?? null),
        candidates.map((c) => c.callbackPath?.terms ?? null),
        candidates.map((c) => c.orderToleranceBps ?? null),
        candidates.map((c) => c.customerPaysFee ?? null),
      ],
    });
    const ownWallets = new Map<number, 'address' | 'affiliate'>();
    const byUrl = new Map<string, WalletRow & { hdIndex: string | null }>();
    for (const row of rows) {
      if (row.ownWallet !== null) {
        ownWallets.set(Number(row.ord) - 1, row.ownWallet);
        continue;
      }
      const { ownWallet: _ownWallet, ord: _ord, ...wallet } = row;
      byUrl.set(wallet.callbackUrl, wallet);
    }
    let missing = candidates.filter((c, index) => !ownWallets.has(index) && !byUrl.has(c.callbackUrl));
    const pathOwners = new Map<string, CallbackPathOwner & { pathKey: Buffer; terms: string }>();
    if (missing.length > 0) {
      // The URL had an owner, or a concurrent request for it committed first (the insert waited
      // for it, so a fresh read sees its row), or a candidate earlier in this batch won.
      for (const row of await this.findOwners(missing.map((c) => c.callbackUrl))) byUrl.set(row.callbackUrl, { ...row, hdIndex: null });
      missing = missing.filter((c) => !byUrl.has(c.callbackUrl));
    }
    if (missing.length > 0) {
      // The URL is free, so the path was claimed for other terms, or by a concurrent request this
      // statement's snapshot did not see.
      for (const owner of await this.findPathOwners(missing.map((c) => c.callbackPath?.key ?? Buffer.alloc(0)))) {
        pathOwners.set(owner.pathKey.toString('hex'), owner);
      }
      const retry = missing.filter(
        (c) => c.callbackPath && pathOwners.get(c.callbackPath.key.toString('hex'))?.terms === c.callbackPath.terms,
      );
      if (retry.length > 0 && attempt < CLAIM_ATTEMPTS) {
        const again = await this.createOrGetMany(retry, attempt + 1);
        retry.forEach((candidate, index) => {
          const result = again[index]!;
          if ('row' in result)
            byUrl.set(candidate.callbackUrl, { ...result.row, hdIndex: result.created ? candidate.hdIndex.toString() : null });
        });
      }
    }
    return candidates.map((candidate, index): CreateOrGetResult => {
      const temporaryWallet = ownWallets.get(index);
      if (temporaryWallet) return { temporaryWallet };
      const found = byUrl.get(candidate.callbackUrl);
      if (found) {
        const { hdIndex, ...row } = found;
        return { row, created: hdIndex === candidate.hdIndex.toString() };
      }
      const owner = candidate.callbackPath && pathOwners.get(candidate.callbackPath.key.toString('hex'));
      if (!owner) throw new Error('wallet missing after a conflict: no live wallet owns the callback URL and no claim holds its path');
      const { pathKey: _key, terms: _terms, ...pathOwner } = owner;
      return { pathOwner };
    });
  }

  /** The live claims (migration 017) on these callback paths (sha256 keys), with the terms they hold. */
  async findPathOwners(pathKeys: readonly Buffer[]): Promise<Array<CallbackPathOwner & { pathKey: Buffer; terms: string }>> {
    const { rows } = await this.pool.query<CallbackPathOwner & { pathKey: Buffer; terms: string }>({
      text: `SELECT path_key AS "pathKey", terms, payout_address AS "payoutAddress", affiliate_address AS "affiliateAddress",
                    affiliate_fee_bps AS "affiliateFeeBps", merchant_fee_bps AS "merchantFeeBps"
             FROM callback_paths WHERE path_key = ANY($1::bytea[]) AND released_at IS NULL`,
      values: [pathKeys],
    });
    return rows;
  }

  /** The live wallets (callback not released) that own these callback URLs, compared byte for byte. */
  async findOwners(callbackUrls: readonly string[]): Promise<WalletRow[]> {
    const { rows } = await this.pool.query<WalletRow>({
      // The join probes wallets_callback_owner_idx (its expression and predicate) once per URL.
      // Not a named statement, for the reason areTemporaryWallets gives: a generic plan made on a
      // nearly empty table would keep scanning it as it grows.
      text: `SELECT ${COLUMNS}
             FROM unnest($1::text[]) AS wanted(url)
             JOIN wallets w ON callback_url_key(w.callback_url) = callback_url_key(wanted.url)
                           AND w.callback_url = wanted.url AND w.callback_released_at IS NULL`,
      values: [callbackUrls],
    });
    return rows;
  }

  /**
   * gateway callbacks release: the live wallet owning this callback URL gives it up (callback_released_at,
   * and its (payout, callback) key), so the URL can be registered again. The wallet keeps its
   * address, payout and split; the callback-worker never calls the URL for it again. Returns the
   * wallet released, or undefined when no live wallet owns the URL.
   */
  async releaseCallback(callbackUrl: string): Promise<ReleasedWallet | undefined> {
    const { rows } = await this.pool.query<ReleasedWallet>({
      text: `UPDATE wallets SET callback_released_at = now(), dedupe_key = NULL
             WHERE callback_url_key(callback_url) = callback_url_key($1) AND callback_url = $1 AND callback_released_at IS NULL
             RETURNING polygon_address AS "polygonAddress", payout_address AS "payoutAddress", callback_url AS "callbackUrl",
                       callback_released_at AS "releasedAt"`,
      values: [callbackUrl],
    });
    return rows[0];
  }

  /**
   * gateway callbacks release: the live claim on this callback path (sha256 key) is released with
   * every live wallet created under it, so the path can be claimed again. The wallets keep their
   * addresses, payouts and splits; the callback-worker never calls their URLs again. Returns the
   * wallets released (none: the path had no claim, or a claim without live wallets, now released).
   */
  async releaseCallbackPath(pathKey: Buffer): Promise<{ claimed: boolean; wallets: ReleasedWallet[] }> {
    const { rows } = await this.pool.query<{ claims: number; wallets: Array<Omit<ReleasedWallet, 'releasedAt'> & { releasedAt: string }> }>(
      {
        text: `WITH claim AS (
               UPDATE callback_paths SET released_at = now() WHERE path_key = $1 AND released_at IS NULL RETURNING id),
             released AS (
               UPDATE wallets SET callback_released_at = now(), dedupe_key = NULL
               WHERE callback_path_id IN (SELECT id FROM claim) AND callback_released_at IS NULL
               RETURNING polygon_address, payout_address, callback_url, callback_released_at)
             SELECT (SELECT count(*) FROM claim)::int AS claims,
                    coalesce(jsonb_agg(jsonb_build_object(
                      'polygonAddress', polygon_address, 'payoutAddress', payout_address,
                      'callbackUrl', callback_url, 'releasedAt', callback_released_at)), '[]') AS wallets
             FROM released`,
        values: [pathKey],
      },
    );
    const [result] = rows;
    return {
      claimed: (result?.claims ?? 0) > 0,
      wallets: (result?.wallets ?? []).map((wallet) => ({ ...wallet, releasedAt: new Date(wallet.releasedAt) })),
    };
  }

  /** Every wallet whose callback was released, newest release first. */
  async listReleased(): Promise<ReleasedWallet[]> {
    const { rows } = await this.pool.query<ReleasedWallet>(
      `SELECT polygon_address AS "polygonAddress", payout_address AS "payoutAddress", callback_url AS "callbackUrl",
              callback_released_at AS "releasedAt"
       FROM wallets WHERE callback_released_at IS NOT NULL ORDER BY callback_released_at DESC, id DESC`,
    );
    return rows;
  }

  /** For each address (any case), whether it is the temporary wallet of a wallet of this gateway, in one indexed query. */
  async areTemporaryWallets(addresses: readonly string[]): Promise<boolean[]> {
    const lower = addresses.map((address) => address.toLowerCase());
    // Not a named (prepared) statement: its cached generic plan, made while a fresh deployment's
    // wallets table is nearly empty and not yet analyzed, scans the whole table, and keeps doing
    // so as it grows (measured: 2.8 million rows read for 16,000 Create Wallet calls). Planned
    // each time, it takes the unique index once the table has more than a few pages.
    const { rows } = await this.pool.query<{ address: string }>(
      'SELECT polygon_address AS address FROM wallets WHERE polygon_address = ANY($1::text[])',
      [lower],
    );
    const found = new Set(rows.map((row) => row.address));
    return lower.map((address) => found.has(address));
  }

  /** Takes `count` fresh HD indexes from the sequence in one round trip. */
  async reserveHdIndexes(count: number): Promise<bigint[]> {
    const { rows } = await this.pool.query<{ index: string }>({
      name: 'wallet-reserve-hd-indexes',
      text: `SELECT nextval('wallet_hd_index_seq')::text AS index FROM generate_series(1, $1)`,
      values: [count],
    });
    return rows.map((row) => BigInt(row.index));
  }
}
