import type { Pool } from 'pg';

/** What Create Wallet answers with, and the affiliate terms a repeat is compared against. */
export interface WalletRow {
  polygonAddress: string;
  addressIn: string;
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
}

export interface DerivedAddress {
  hdIndex: bigint;
  /** EIP-55 checksummed, as derived: kept so that answering with it costs no second keccak. */
  polygonAddress: string;
}

const COLUMNS = `polygon_address AS "polygonAddress", address_in AS "addressIn", callback_url AS "callbackUrl",
  ipn_token AS "ipnToken", affiliate_address AS "affiliateAddress", affiliate_fee_bps AS "affiliateFeeBps",
  merchant_fee_bps AS "merchantFeeBps"`;

export class WalletRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Returns the wallet of each candidate's (payout, callback) pair, creating it from the candidate
   * when there is none, in one statement for the whole batch (concurrent Create Wallet calls are
   * batched: a statement costs PostgreSQL far more than a row). `created` tells whether that
   * candidate's address was used; identical candidates in one batch get one wallet. An existing
   * wallet is returned with the affiliate terms it was created with, which may differ from the
   * candidate's: the caller compares them.
   */
  async createOrGetMany(candidates: readonly NewWallet[]): Promise<Array<{ row: WalletRow; created: boolean }>> {
    // New pairs are the common case: insert first, and read back only the pairs that existed
    // (one more statement for a batch with repeats, one index probe less for every new row).
    const { rows } = await this.pool.query<WalletRow & { dedupeKey: Buffer; hdIndex: string | null }>({
      name: 'wallet-insert-many',
      text: `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token,
                                  affiliate_address, affiliate_fee_bps, merchant_fee_bps, key_fingerprint)
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::text[],
                                  $8::text[], $9::int[], $10::int[], $11::text[])
             ON CONFLICT (dedupe_key) DO NOTHING
             RETURNING dedupe_key AS "dedupeKey", ${COLUMNS}, hd_index::text AS "hdIndex"`,
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
      ],
    });
    const byKey = new Map(rows.map((row) => [row.dedupeKey.toString('hex'), row]));
    const missing = candidates.filter((c) => !byKey.has(c.dedupeKey.toString('hex')));
    if (missing.length > 0) {
      // The pair existed, or a concurrent identical request committed first (ON CONFLICT waited
      // for it, so a fresh read sees its row), or an identical candidate earlier in this batch won.
      for (const row of await this.findByDedupeKeys(missing.map((c) => c.dedupeKey))) byKey.set(row.dedupeKey.toString('hex'), { ...row, hdIndex: null });
    }
    return candidates.map((candidate) => {
      const found = byKey.get(candidate.dedupeKey.toString('hex'));
      if (!found) throw new Error('wallet missing after a dedupe conflict');
      const { dedupeKey: _key, hdIndex, ...row } = found;
      return { row, created: hdIndex === candidate.hdIndex.toString() };
    });
  }

  private async findByDedupeKeys(keys: Buffer[]): Promise<Array<WalletRow & { dedupeKey: Buffer }>> {
    const { rows } = await this.pool.query<WalletRow & { dedupeKey: Buffer }>({
      name: 'wallets-by-dedupe-keys',
      text: `SELECT dedupe_key AS "dedupeKey", ${COLUMNS} FROM wallets WHERE dedupe_key = ANY($1::bytea[])`,
      values: [keys],
    });
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
