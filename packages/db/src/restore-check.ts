import type { Pool } from 'pg';
import { PAYOUT_LEG_STATUSES_UNPAID, sqlStatusList } from '@gateway/domain';

// What `gateway restore check` reads of a restored database, with the owner's login: it writes
// nothing. Each read is one indexed query, or one per batch of chain logs.

/** A leg the database holds as not paid (planned, signed, broadcast, or waiting for a person). */
export interface UnpaidLeg {
  payoutId: string;
  depositId: string;
  leg: string;
  status: string;
  fromAddress: string;
  authorizationNonce: string;
}

/** A callback delivery whose last word in the database is not "delivered". */
export interface UndeliveredCallback {
  deliveryId: string;
  depositId: string | null;
  status: string;
  attempts: number;
  createdAt: Date;
}

export interface RestoredDatabaseFacts {
  /** The watcher's checkpoint: the last block it processed for the settled token, or null before its first round. */
  cursorBlock: bigint | null;
  /** The oldest block of a deposit settlement still owes work on (final, forwarding, held, needs attention), or null. */
  oldestOpenDepositBlock: bigint | null;
  /** The relayer nonce counters: the next nonce each relayer would be given from the database alone. */
  relayerCounters: { relayerAddress: string; nextNonce: bigint }[];
  /** The newest moment any record was written: the backup's own time, as near as the database can tell it. */
  newestRecordAt: Date | null;
  /** The highest HD index of a wallet here, or null: wallets created after the backup have higher ones. */
  highestHdIndex: bigint | null;
}

export async function restoredDatabaseFacts(pool: Pool, chainId: number, token: string): Promise<RestoredDatabaseFacts> {
  const { rows } = await pool.query<{ cursor: string | null; oldest: string | null; newest: Date | null; hd: string | null }>(
    `SELECT (SELECT block_number::text FROM chain_cursors WHERE chain_id = $1 AND token = $2) AS cursor,
            (SELECT min(block_number)::text FROM deposits
              WHERE chain_id = $1 AND status IN ('final', 'forwarding', 'held', 'needs_attention')) AS oldest,
            greatest((SELECT max(seen_at) FROM deposits), (SELECT max(created_at) FROM wallets),
                     (SELECT max(greatest(created_at, delivered_at)) FROM callback_deliveries),
                     (SELECT max(updated_at) FROM chain_cursors)) AS newest,
            (SELECT max(hd_index)::text FROM wallets) AS hd`,
    [chainId, token.toLowerCase()],
  );
  const { rows: counters } = await pool.query<{ relayer: string; next: string }>(
    'SELECT relayer_address AS relayer, next_nonce::text AS next FROM relayer_nonces WHERE chain_id = $1 ORDER BY relayer_address',
    [chainId],
  );
  const facts = rows[0];
  return {
    cursorBlock: facts?.cursor ? BigInt(facts.cursor) : null,
    oldestOpenDepositBlock: facts?.oldest ? BigInt(facts.oldest) : null,
    relayerCounters: counters.map((row) => ({ relayerAddress: row.relayer, nextNonce: BigInt(row.next) })),
    newestRecordAt: facts?.newest ?? null,
    highestHdIndex: facts?.hd ? BigInt(facts.hd) : null,
  };
}

/** Every leg not paid as far as the database knows, needing attention included (its authorization may have been used after all). */
export async function unpaidLegs(pool: Pool, chainId: number): Promise<UnpaidLeg[]> {
  const { rows } = await pool.query<UnpaidLeg>(
    `SELECT p.id::text AS "payoutId", p.deposit_id::text AS "depositId", p.leg, p.status, p.from_address AS "fromAddress",
            p.authorization_nonce AS "authorizationNonce"
       FROM payouts p JOIN deposits d ON d.id = p.deposit_id
      WHERE d.chain_id = $1 AND p.status IN (${sqlStatusList([...PAYOUT_LEG_STATUSES_UNPAID, 'needs_attention'])})
      ORDER BY p.id`,
    [chainId],
  );
  return rows;
}

/** Of `addresses` (lower-case), those that are temporary wallets of this database. */
export async function knownTemporaryWallets(pool: Pool, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const { rows } = await pool.query<{ address: string }>('SELECT polygon_address AS address FROM wallets WHERE polygon_address = ANY($1)', [
    [...new Set(addresses)],
  ]);
  return new Set(rows.map((row) => row.address));
}

/** Of the (authorizer, nonce) pairs given (lower-case), those a payout leg of this database carries, in any status. */
export async function knownAuthorizations(pool: Pool, pairs: readonly { authorizer: string; nonce: string }[]): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const { rows } = await pool.query<{ key: string }>(
    `SELECT from_address || ':' || authorization_nonce AS key FROM payouts
      WHERE (from_address, authorization_nonce) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [pairs.map((pair) => pair.authorizer), pairs.map((pair) => pair.nonce)],
  );
  return new Set(rows.map((row) => row.key));
}

/** Of the transfers given (tx hash, log index), those this database holds as deposits. */
export async function knownDeposits(
  pool: Pool,
  chainId: number,
  transfers: readonly { txHash: string; logIndex: number }[],
): Promise<Set<string>> {
  if (transfers.length === 0) return new Set();
  const { rows } = await pool.query<{ key: string }>(
    `SELECT tx_hash || ':' || log_index AS key FROM deposits
      WHERE chain_id = $1 AND (tx_hash, log_index) IN (SELECT * FROM unnest($2::text[], $3::int[]))`,
    [chainId, transfers.map((transfer) => transfer.txHash), transfers.map((transfer) => transfer.logIndex)],
  );
  return new Set(rows.map((row) => row.key));
}

/** Callback deliveries not delivered in this database: the backup's word on them, which the merchant may have outlived. */
export async function undeliveredCallbacks(pool: Pool): Promise<UndeliveredCallback[]> {
  const { rows } = await pool.query<UndeliveredCallback>(
    `SELECT id::text AS "deliveryId", deposit_id::text AS "depositId", status, attempt_count AS attempts, created_at AS "createdAt"
       FROM callback_deliveries WHERE status <> 'delivered' ORDER BY created_at`,
  );
  return rows;
}
