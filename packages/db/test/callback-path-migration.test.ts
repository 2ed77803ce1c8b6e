import { randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { callbackPathBinding } from '@gateway/domain';
import { TEST_DATABASE_URL } from '@gateway/testkit';
import { createPool } from '../src/pool';
import { migrate, readMigrations } from '../src/migrate';
import { WalletRepository, type NewWallet } from '../src/repositories/wallet-repository';

// Migration 017 binds a callback's origin and path to the terms of its first wallet. A deployment
// that already has wallets must have their paths claimed at once, in the canonical form Create
// Wallet computes, or a stranger could be the first to claim a shop's path after the upgrade.

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const schema = `path_upgrade_${randomBytes(6).toString('hex')}`;
let pool: Pool;

beforeAll(() => {
  pool = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 2 });
});
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

let hdIndex = 0;
async function legacyWallet(callbackUrl: string, payout = hex(20), affiliate?: { address: string; merchantFeeBps: number }) {
  await pool.query(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token, key_fingerprint,
                          platform_fee_bps, affiliate_address, affiliate_fee_bps, merchant_fee_bps)
     VALUES ($1, $2, 'sealed', $3, $4, $5, $6, 'a1b2c3d4', $7, $8, $9, $10)`,
    [
      hdIndex++,
      hex(20),
      payout,
      callbackUrl,
      randomBytes(32),
      randomUUID(),
      affiliate ? 10_000 - affiliate.merchantFeeBps - 100 : 100,
      affiliate?.address ?? null,
      affiliate ? 100 : null,
      affiliate?.merchantFeeBps ?? null,
    ],
  );
  return payout;
}

function candidate(callbackUrl: string, payoutAddress: string): NewWallet {
  return {
    hdIndex: BigInt(1000 + hdIndex++),
    polygonAddress: hex(20),
    addressIn: 'sealed',
    payoutAddress,
    callbackUrl,
    dedupeKey: randomBytes(32),
    ipnToken: randomUUID(),
    keyFingerprint: 'a1b2c3d4',
    platformFeeBps: 100,
    callbackPath: callbackPathBinding(callbackUrl, { payoutAddress, affiliate: null }),
  };
}

it("claims each existing wallet's path for its first wallet's terms, in canonical form; a stranger is refused after it", async () => {
  await pool.query(`CREATE SCHEMA "${schema}"`);
  await pool.query(
    'CREATE TABLE schema_migrations (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const migration of readMigrations().filter((m) => m.name < '017')) {
    if (migration.name === '014_app_roles.sql') await pool.query(`SELECT set_config('gateway.role_prefix', 'gateway', false)`);
    await pool.query(migration.sql);
    await pool.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [migration.name, migration.checksum]);
  }
  const shop = await legacyWallet('HTTPS://Shop.io:443/ipn?order_id=1');
  await legacyWallet('https://shop.io/ipn?order_id=2', shop);
  // A later wallet on the shop's path with another payout (a hijack, or a seller of a marketplace): left live, not the claim.
  const later = await legacyWallet('https://shop.io/a/../ipn?order_id=3&x=1');
  const partner = hex(20);
  const affiliated = await legacyWallet('https://other.io/ipn?order_id=1', hex(20), { address: partner, merchantFeeBps: 9_700 });

  await migrate(pool, schema);

  const { rows } = await pool.query<{ callback_path: string; terms: string }>(
    'SELECT callback_path, terms FROM callback_paths ORDER BY id',
  );
  expect(rows).toEqual([
    { callback_path: 'https://shop.io/ipn', terms: shop },
    { callback_path: 'https://other.io/ipn', terms: `${affiliated} affiliate ${partner} split 9700/100` },
  ]);
  const { rows: live } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM wallets WHERE callback_released_at IS NULL');
  expect(live[0]!.n).toBe(4);

  const wallets = new WalletRepository(pool);
  const [stranger, owner, laterRepeat] = await wallets.createOrGetMany([
    candidate('https://shop.io/ipn?order_id=9', hex(20)),
    candidate('https://shop.io/ipn?order_id=10', shop),
    candidate('https://shop.io/a/../ipn?order_id=3&x=1', later),
  ]);
  expect(stranger).toEqual({ pathOwner: { payoutAddress: shop, affiliateAddress: null, affiliateFeeBps: null, merchantFeeBps: null } });
  expect(owner).toMatchObject({ created: true, row: { payoutAddress: shop } });
  // The later wallet's own URL still answers its owner: only new URLs on the path are refused.
  expect(laterRepeat).toMatchObject({ created: false, row: { payoutAddress: later } });
});
