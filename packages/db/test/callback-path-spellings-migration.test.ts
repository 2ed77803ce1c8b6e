import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { callbackPathBinding, callbackPathKey } from '@gateway/domain';
import { TEST_DATABASE_URL } from '@gateway/testkit';
import { createPool } from '../src/pool';
import { migrate, readMigrations } from '../src/migrate';
import { WalletRepository, type NewWallet } from '../src/repositories/wallet-repository';

// Migration 025 (issue 35): claims made under migration 017's rule, which kept `/IPN`, `/ipn/`,
// `/ipn;x` … apart, are recomputed with the rule that reads them as the shop's server does. Where
// claims become one, the first keeps the path; a later one with other terms (a stranger on a
// spelling of the shop's path) is released with its wallets' callbacks.

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const schema = `path_spellings_${randomBytes(6).toString('hex')}`;
/** The key migration 017's rule stored: sha256 of the canonical path it kept. */
const oldKey = (path: string) => createHash('sha256').update(path).digest();
let pool: Pool;

beforeAll(() => {
  pool = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 2 });
});
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});

/** A claim as Create Wallet made it before this migration, with `released` for one the operator released. */
async function oldClaim(path: string, payout: string, released = false): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO callback_paths (path_key, callback_path, terms, payout_address, released_at)
     VALUES ($1, $2, $3, $3, $4) RETURNING id::text AS id`,
    [oldKey(path), path, payout, released ? new Date() : null],
  );
  return rows[0]!.id;
}

let hdIndex = 0;
async function walletOn(claimId: string, callbackUrl: string, payout: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token, key_fingerprint,
                          platform_fee_bps, callback_path_id, callback_terms)
     VALUES ($1, $2, 'sealed', $3, $4, $5, $6, 'a1b2c3d4', 100, $7, $3) RETURNING id::text AS id`,
    [hdIndex++, hex(20), payout, callbackUrl, randomBytes(32), randomUUID(), claimId],
  );
  return rows[0]!.id;
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

it('recomputes every claim; of claims that become one the oldest keeps the path, a stranger on a later one loses its callback', async () => {
  await pool.query(`CREATE SCHEMA "${schema}"`);
  await pool.query(
    'CREATE TABLE schema_migrations (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const migration of readMigrations().filter((m) => m.name < '025')) {
    if (migration.name === '014_app_roles.sql') await pool.query(`SELECT set_config('gateway.role_prefix', 'gateway', false)`);
    await pool.query(migration.sql);
    await pool.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [migration.name, migration.checksum]);
  }
  const [shop, stranger, other] = [hex(20), hex(20), hex(20)];
  const shopClaim = await oldClaim('https://shop.io/ipn', shop);
  const shopWallet = await walletOn(shopClaim, 'https://shop.io/ipn?order=1', shop);
  // The hijack this migration closes: a stranger's claim on a spelling of the shop's path.
  const strangerClaim = await oldClaim('https://shop.io/IPN', stranger);
  const strangerWallet = await walletOn(strangerClaim, 'https://shop.io/IPN?order=1', stranger);
  // The shop's own wallet on another spelling: the claim goes, the callback stays.
  const shopSpelling = await oldClaim('https://shop.io/ipn/index.php', shop);
  const shopSpellingWallet = await walletOn(shopSpelling, 'https://shop.io/ipn/index.php?order=2', shop);
  const otherClaim = await oldClaim('https://other.io/Pay//IPN/;v=1', other);
  const releasedClaim = await oldClaim('https://shop.io/Old/', stranger, true);

  expect((await migrate(pool, schema))[0]).toBe('025_callback_path_spellings.sql');

  const { rows: claims } = await pool.query<{ id: string; path_key: Buffer; callback_path: string; released: boolean }>(
    'SELECT id::text, path_key, callback_path, released_at IS NOT NULL AS released FROM callback_paths ORDER BY id',
  );
  const claim = (path: string, released: boolean) => ({ path_key: callbackPathKey(path), callback_path: path, released });
  expect(claims).toEqual([
    { id: shopClaim, ...claim('https://shop.io/ipn', false) },
    { id: strangerClaim, ...claim('https://shop.io/ipn', true) },
    { id: shopSpelling, ...claim('https://shop.io/ipn', true) },
    { id: otherClaim, ...claim('https://other.io/pay/ipn', false) },
    { id: releasedClaim, ...claim('https://shop.io/old', true) },
  ]);
  const { rows: wallets } = await pool.query<{ id: string; released: boolean }>(
    'SELECT id::text, callback_released_at IS NOT NULL AS released FROM wallets ORDER BY id',
  );
  expect(wallets).toEqual([
    { id: shopWallet, released: false },
    { id: strangerWallet, released: true },
    { id: shopSpellingWallet, released: false },
  ]);

  // Create Wallet after the upgrade: every spelling is the shop's claim.
  const repository = new WalletRepository(pool);
  const [strangerAgain, shopAgain, otherAgain] = await repository.createOrGetMany([
    candidate('https://shop.io/IPN/?order=9', stranger),
    candidate('https://shop.io//ipn;x?order=10', shop),
    candidate('https://other.io/pay/ipn?order=1', stranger),
  ]);
  expect(strangerAgain).toEqual({
    pathOwner: { payoutAddress: shop, affiliateAddress: null, affiliateFeeBps: null, merchantFeeBps: null },
  });
  expect(shopAgain).toMatchObject({ created: true, row: { payoutAddress: shop } });
  expect(otherAgain).toEqual({ pathOwner: { payoutAddress: other, affiliateAddress: null, affiliateFeeBps: null, merchantFeeBps: null } });
});
