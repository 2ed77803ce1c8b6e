import type { Pool } from 'pg';

export interface WalletRow {
  id: string;
  hdIndex: string;
  polygonAddress: string;
  addressIn: string;
  payoutAddress: string;
  callbackUrl: string;
  ipnToken: string;
  createdAt: Date;
}

export interface NewWallet {
  hdIndex: bigint;
  polygonAddress: string;
  addressIn: string;
  payoutAddress: string;
  callbackUrl: string;
  dedupeKey: Buffer;
  ipnToken: string;
}

export interface DerivedAddress {
  hdIndex: bigint;
  polygonAddress: string;
}

const COLUMNS = `id::text AS "id", hd_index::text AS "hdIndex", polygon_address AS "polygonAddress",
  address_in AS "addressIn", payout_address AS "payoutAddress", callback_url AS "callbackUrl",
  ipn_token AS "ipnToken", created_at AS "createdAt"`;

export class WalletRepository {
  constructor(private readonly pool: Pool) {}

  async findByDedupeKey(dedupeKey: Buffer): Promise<WalletRow | undefined> {
    const { rows } = await this.pool.query<WalletRow>({
      name: 'wallet-by-dedupe-key',
      text: `SELECT ${COLUMNS} FROM wallets WHERE dedupe_key = $1`,
      values: [dedupeKey],
    });
    return rows[0];
  }

  /**
   * Returns the wallet of this (payout, callback) pair, creating it from `candidate` when there
   * is none, in one round trip. `created` tells whether the candidate's address was used.
   */
  async createOrGet(candidate: NewWallet): Promise<{ row: WalletRow; created: boolean }> {
    const { rows } = await this.pool.query<WalletRow & { created: boolean }>({
      name: 'wallet-create-or-get',
      text: `WITH existing AS (SELECT ${COLUMNS} FROM wallets WHERE dedupe_key = $6),
             inserted AS (
               INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
               SELECT $1, $2, $3, $4, $5, $6, $7 WHERE NOT EXISTS (SELECT 1 FROM existing)
               ON CONFLICT (dedupe_key) DO NOTHING
               RETURNING ${COLUMNS})
             SELECT *, true AS created FROM inserted
             UNION ALL SELECT *, false AS created FROM existing`,
      values: [
        candidate.hdIndex.toString(),
        candidate.polygonAddress.toLowerCase(),
        candidate.addressIn,
        candidate.payoutAddress.toLowerCase(),
        candidate.callbackUrl,
        candidate.dedupeKey,
        candidate.ipnToken,
      ],
    });
    const [first] = rows;
    if (first) {
      const { created, ...row } = first;
      return { row, created };
    }
    // A concurrent identical request committed between our snapshot and our insert; ON CONFLICT
    // waited for it, so a fresh read now sees its row.
    const winner = await this.findByDedupeKey(candidate.dedupeKey);
    if (!winner) throw new Error('wallet missing after a dedupe conflict');
    return { row: winner, created: false };
  }

  async findByPolygonAddress(address: string): Promise<WalletRow | undefined> {
    const { rows } = await this.pool.query<WalletRow>({
      name: 'wallet-by-polygon-address',
      text: `SELECT ${COLUMNS} FROM wallets WHERE polygon_address = $1`,
      values: [address.toLowerCase()],
    });
    return rows[0];
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

  async addToAddressPool(addresses: readonly DerivedAddress[]): Promise<void> {
    if (addresses.length === 0) return;
    await this.pool.query({
      text: `INSERT INTO address_pool (hd_index, polygon_address)
             SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT DO NOTHING`,
      values: [addresses.map((a) => a.hdIndex.toString()), addresses.map((a) => a.polygonAddress.toLowerCase())],
    });
  }

  /**
   * Removes up to `count` addresses from the pool and hands them to this process. Replicas
   * claim disjoint sets (SKIP LOCKED); an address claimed by a process that then dies is
   * simply never used.
   */
  async claimFromAddressPool(count: number): Promise<DerivedAddress[]> {
    const { rows } = await this.pool.query<{ hdIndex: string; polygonAddress: string }>({
      name: 'address-pool-claim',
      text: `DELETE FROM address_pool WHERE hd_index IN (
               SELECT hd_index FROM address_pool ORDER BY hd_index LIMIT $1 FOR UPDATE SKIP LOCKED)
             RETURNING hd_index::text AS "hdIndex", polygon_address AS "polygonAddress"`,
      values: [count],
    });
    return rows
      .map((row) => ({ hdIndex: BigInt(row.hdIndex), polygonAddress: row.polygonAddress }))
      .sort((a, b) => (a.hdIndex < b.hdIndex ? -1 : 1));
  }

  async countAddressPool(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM address_pool');
    return rows[0]?.n ?? 0;
  }
}
