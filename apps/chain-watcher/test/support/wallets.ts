import type { Pool } from 'pg';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { seedWallet } from '@gateway/app-testkit';

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
  const wallet = await seedWallet(pool, { polygonAddress: temporaryAddress });
  return { id: wallet.id, address: wallet.polygonAddress };
}

/** An address no wallet row has. */
export function strangerAddress(): string {
  return privateKeyToAddress(generatePrivateKey()).toLowerCase();
}
