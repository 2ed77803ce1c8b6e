import { randomBytes, randomUUID } from 'node:crypto';
import { migrate } from '../src/migrate';
import { WalletRepository } from '../src/repositories/wallet-repository';
import { legacySchema } from './support/legacy-schema';
import { hex, pathBoundCandidate } from './support/wallet-candidate';

// Migration 017 binds a callback's origin and path to the terms of its first wallet. A deployment
// that already has wallets must have their paths claimed at once, in the canonical form Create
// Wallet computes, or a stranger could be the first to claim a shop's path after the upgrade.

const { pool, schema, migrateBefore } = legacySchema('path_upgrade');

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

it("claims each existing wallet's path for its first wallet's terms, in canonical form; a stranger is refused after it", async () => {
  await migrateBefore('017');
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
    pathBoundCandidate('https://shop.io/ipn?order_id=9', hex(20)),
    pathBoundCandidate('https://shop.io/ipn?order_id=10', shop),
    pathBoundCandidate('https://shop.io/a/../ipn?order_id=3&x=1', later),
  ]);
  expect(stranger).toEqual({ pathOwner: { payoutAddress: shop, affiliateAddress: null, affiliateFeeBps: null, merchantFeeBps: null } });
  expect(owner).toMatchObject({ created: true, row: { payoutAddress: shop } });
  // The later wallet's own URL still answers its owner: only new URLs on the path are refused.
  expect(laterRepeat).toMatchObject({ created: false, row: { payoutAddress: later } });
});
