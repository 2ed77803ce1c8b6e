import type { Pool, PoolClient } from 'pg';

/** A pool or a client inside a transaction: statements that must commit together take one. */
export type Queryable = Pick<Pool, 'query'> | Pick<PoolClient, 'query'>;

/** Which chain and token a cursor follows (the token in any case; stored lower-case). */
export interface ChainCursorKey {
  chainId: number;
  token: string;
}

/** The last block fully processed, and its hash: a different hash at that height is a reorg. */
export interface ChainCursor {
  blockNumber: bigint;
  blockHash: string;
}

/** Where the chain watcher stopped, per chain and token. */
export class ChainCursorRepository {
  constructor(private readonly pool: Pool) {}

  async get(key: ChainCursorKey): Promise<ChainCursor | undefined> {
    const { rows } = await this.pool.query<{ blockNumber: string; blockHash: string }>({
      name: 'chain-cursor-get',
      text: `SELECT block_number::text AS "blockNumber", block_hash AS "blockHash"
             FROM chain_cursors WHERE chain_id = $1 AND token = $2`,
      values: [key.chainId, key.token.toLowerCase()],
    });
    const row = rows[0];
    return row ? { blockNumber: BigInt(row.blockNumber), blockHash: row.blockHash } : undefined;
  }

  /** Stores `start` unless a cursor exists already; returns the cursor that is stored. */
  async initialize(key: ChainCursorKey, start: ChainCursor): Promise<ChainCursor> {
    await this.pool.query({
      name: 'chain-cursor-initialize',
      text: `INSERT INTO chain_cursors (chain_id, token, block_number, block_hash) VALUES ($1, $2, $3, $4)
             ON CONFLICT (chain_id, token) DO NOTHING`,
      values: [key.chainId, key.token.toLowerCase(), start.blockNumber.toString(), start.blockHash],
    });
    const stored = await this.get(key);
    if (!stored) throw new Error(`chain cursor ${key.chainId}/${key.token} missing right after its insert`);
    return stored;
  }

  /**
   * Moves the cursor from `from` to `to` (forward after a scan, back after a reorg) only if it
   * still is `from`: a watcher that lost its leadership, or an operator's reset, makes this
   * return false instead of overwriting a newer position.
   */
  async move(db: Queryable, key: ChainCursorKey, from: ChainCursor, to: ChainCursor): Promise<boolean> {
    const { rowCount } = await db.query({
      name: 'chain-cursor-move',
      text: `UPDATE chain_cursors SET block_number = $5, block_hash = $6, updated_at = now()
             WHERE chain_id = $1 AND token = $2 AND block_number = $3 AND block_hash = $4`,
      values: [key.chainId, key.token.toLowerCase(), from.blockNumber.toString(), from.blockHash, to.blockNumber.toString(), to.blockHash],
    });
    return rowCount === 1;
  }

  /** Puts the cursor at `cursor` unconditionally (operators re-scanning a range, tests). */
  async set(key: ChainCursorKey, cursor: ChainCursor): Promise<void> {
    await this.pool.query({
      name: 'chain-cursor-set',
      text: `INSERT INTO chain_cursors (chain_id, token, block_number, block_hash) VALUES ($1, $2, $3, $4)
             ON CONFLICT (chain_id, token) DO UPDATE
               SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, updated_at = now()`,
      values: [key.chainId, key.token.toLowerCase(), cursor.blockNumber.toString(), cursor.blockHash],
    });
  }
}
