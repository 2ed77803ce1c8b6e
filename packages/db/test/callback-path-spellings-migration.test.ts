import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { callbackPathKey } from '@gateway/domain';
import { migrate } from '../src/migrate';
import { WalletRepository } from '../src/repositories/wallet-repository';
import { legacySchema } from './support/legacy-schema';
import { hex, pathBoundCandidate } from './support/wallet-candidate';

// Migration 025 (issue 35): claims made under migration 017's rule, which kept `/IPN`, `/ipn/`,
// `/ipn;x` … apart, are recomputed with the rule that reads them as the shop's server does. Where
// claims become one, the first keeps the path; a later one with other terms (a stranger on a
// spelling of the shop's path) is released with its wallets' callbacks.

const { pool, schema, migrateBefore } = legacySchema('path_spellings');
/** The key migration 017's rule stored: sha256 of the canonical path it kept. */
const oldKey = (path: string) => createHash('sha256').update(path).digest();

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

it('recomputes every claim; of claims that become one the oldest keeps the path, a stranger on a later one loses its callback', async () => {
  await migrateBefore('025');
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
    pathBoundCandidate('https://shop.io/IPN/?order=9', stranger),
    pathBoundCandidate('https://shop.io//ipn;x?order=10', shop),
    pathBoundCandidate('https://other.io/pay/ipn?order=1', stranger),
  ]);
  expect(strangerAgain).toEqual({
    pathOwner: { payoutAddress: shop, affiliateAddress: null, affiliateFeeBps: null, merchantFeeBps: null },
  });
  expect(shopAgain).toMatchObject({ created: true, row: { payoutAddress: shop } });
  expect(otherAgain).toEqual({ pathOwner: { payoutAddress: other, affiliateAddress: null, affiliateFeeBps: null, merchantFeeBps: null } });
});
