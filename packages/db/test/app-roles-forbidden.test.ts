import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { TEST_DATABASE_URL } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { createPool } from '../src/pool';

// Issue 17, section 3: code execution in an internet-facing app (or the callback-worker) must not
// be able to redirect funds. Each statement below is what such code would run to do it, on the
// pool the app gets (its role, migration 014); PostgreSQL must refuse it (42501).

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const attacker = hex(20);

let db: TestDatabase;
const pools: Pool[] = [];
const poolOf = (app: 'wallet-control' | 'payment-redirect' | 'callback-worker' | 'chain-watcher' | 'settlement-worker') => {
  const pool = createPool({ connectionString: TEST_DATABASE_URL, schema: db.schema, max: 1, app });
  pools.push(pool);
  return pool;
};
const seeded = { walletId: '', depositId: '', payoutId: '' };

beforeAll(async () => {
  db = await createTestDatabase('app_roles_forbidden');
  const { rows: wallet } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES (0, $1, 'sealed', $2, 'https://shop.example/ipn', $3, $4) RETURNING id::text AS id`,
    [hex(20), hex(20), randomBytes(32), randomUUID()],
  );
  seeded.walletId = wallet[0]!.id;
  const { rows: deposit } = await db.pool.query<{ id: string }>(
    `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status)
     VALUES (137, $1, 0, 1, $2, $3, $4, 25000000, 'forwarding') RETURNING id::text AS id`,
    [hex(32), hex(32), seeded.walletId, hex(20)],
  );
  seeded.depositId = deposit[0]!.id;
  const { rows: payout } = await db.pool.query<{ id: string }>(
    `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before)
     VALUES ($1, 'merchant', $2, $3, 24750000, $4, 2000000000) RETURNING id::text AS id`,
    [seeded.depositId, hex(20), hex(20), hex(32)],
  );
  seeded.payoutId = payout[0]!.id;
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await db.drop();
});

const denied = { code: '42501', message: expect.stringMatching(/permission denied/) };

describe.each(['wallet-control', 'payment-redirect', 'callback-worker'] as const)('%s cannot redirect funds', (app) => {
  it.each([
    ['rewrite a wallet payout address', 'UPDATE wallets SET payout_address = $1 WHERE id = $2', () => [attacker, seeded.walletId]],
    [
      'rewrite a wallet affiliate split',
      'UPDATE wallets SET affiliate_address = $1, affiliate_fee_bps = 9900 WHERE id = $2',
      () => [attacker, seeded.walletId],
    ],
    ['rewrite a wallet merchant share', 'UPDATE wallets SET merchant_fee_bps = 0 WHERE id = $1', () => [seeded.walletId]],
    ['rewrite a wallet callback URL', `UPDATE wallets SET callback_url = 'https://evil.example/' WHERE id = $1`, () => [seeded.walletId]],
    ['redirect a planned leg', 'UPDATE payouts SET to_address = $1 WHERE id = $2', () => [attacker, seeded.payoutId]],
    ['raise a planned leg', 'UPDATE payouts SET amount = amount * 2 WHERE id = $1', () => [seeded.payoutId]],
    [
      'plan a leg of its own',
      `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before)
       VALUES ($1, 'affiliate', $2, $2, 1, $3, 2000000000)`,
      () => [seeded.depositId, attacker, hex(32)],
    ],
    ['delete a leg', 'DELETE FROM payouts WHERE id = $1', () => [seeded.payoutId]],
    [
      'record a relayer transaction',
      `INSERT INTO payout_transactions (payout_id, chain_id, relayer_address, relayer_nonce, tx_hash, raw_tx, gas_limit,
                                        max_fee_per_gas, max_priority_fee_per_gas, reason)
       VALUES ($1, 137, $2, 0, $3, '0x00', 1, 1, 1, 'initial')`,
      () => [seeded.payoutId, attacker, hex(32)],
    ],
    ['move a deposit on', `UPDATE deposits SET status = 'final' WHERE id = $1`, () => [seeded.depositId]],
    ['delete a wallet', 'DELETE FROM wallets WHERE id = $1', () => [seeded.walletId]],
  ])('%s: permission denied', async (_what, sql, values) => {
    await expect(poolOf(app).query(sql, values())).rejects.toMatchObject(denied);
  });
});

describe('the wallet terms as written stay', () => {
  it('after every refused attempt', async () => {
    const { rows } = await db.pool.query('SELECT payout_address, callback_url FROM wallets WHERE id = $1', [seeded.walletId]);
    expect(rows[0].payout_address).not.toBe(attacker);
    expect(rows[0].callback_url).toBe('https://shop.example/ipn');
  });
});
