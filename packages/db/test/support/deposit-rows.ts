import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { hex } from './wallet-candidate';

/** The chain the repository tests' deposits are on. */
export const TEST_CHAIN_ID = 137;

// The HD indexes of the wallets made here: 0, 1, 2 … in each test file's schema.
let hdIndex = 0;

/** A wallet as Create Wallet leaves it, at a fresh temporary address: its id and that address. */
export async function insertWallet(pool: Pool): Promise<{ id: string; address: string }> {
  const address = hex(20);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES ($1, $2, $3, $4, 'https://shop.example/ipn?w=' || $2, $5, $6) RETURNING id::text AS id`,
    [hdIndex++, address, randomUUID(), hex(20), randomBytes(32), randomUUID()],
  );
  return { id: rows[0]!.id, address };
}

/** A deposit of `amount` into the wallet, as the chain watcher records it, in `status`; its id. */
export async function insertDeposit(pool: Pool, walletId: string, amount: bigint, status: 'final' | 'held' = 'final'): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status)
     VALUES ($1, $2, 0, 1, $3, $4, $5, $6, $7) RETURNING id::text AS id`,
    [TEST_CHAIN_ID, hex(32), hex(32), walletId, hex(20), amount.toString(), status],
  );
  return rows[0]!.id;
}

/** A final deposit into a new wallet: its id, and the temporary address its legs are paid from. */
export async function finalDeposit(pool: Pool, amount = 1_000_000n): Promise<{ depositId: string; from: string }> {
  const wallet = await insertWallet(pool);
  return { depositId: await insertDeposit(pool, wallet.id, amount), from: wallet.address };
}
