import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';

export interface TestWallet {
  id: string;
  /** Lower-case, as stored. */
  address: string;
}

/**
 * A temporary wallet row as Create Wallet would leave it (the fields the watcher does not read are
 * random), at `temporaryAddress` when the test holds its key.
 */
export async function insertWallet(pool: Pool, temporaryAddress: string = strangerAddress()): Promise<TestWallet> {
  const address = temporaryAddress.toLowerCase();
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES (nextval('wallet_hd_index_seq'), $1, $2, $3, $4, $5, $6) RETURNING id::text AS id`,
    [
      address,
      `test-${randomBytes(16).toString('hex')}`,
      `0x${randomBytes(20).toString('hex')}`,
      `https://shop.example/ipn?order=${randomBytes(4).toString('hex')}`,
      randomBytes(32),
      randomBytes(24).toString('hex'),
    ],
  );
  return { id: rows[0]!.id, address };
}

/** An address no wallet row has. */
export function strangerAddress(): string {
  return privateKeyToAddress(generatePrivateKey()).toLowerCase();
}
