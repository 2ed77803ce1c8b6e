import { randomBytes, randomUUID } from 'node:crypto';
import { migrate } from '../src/migrate';
import { WalletRepository } from '../src/repositories/wallet-repository';
import { legacySchema } from './support/legacy-schema';
import { hex } from './support/wallet-candidate';

// Migration 013 makes a callback URL belong to one live wallet. A deployment may already have
// wallets sharing a URL (the hijack, or a shop that re-registered with a new payout address): the
// migration must not fail on them. The first registered keeps the URL; the later ones are released.

const { pool, schema, migrateBefore } = legacySchema('owner_upgrade');

async function insertWallet(hdIndex: number, callbackUrl: string): Promise<{ id: string; payout: string }> {
  const payout = hex(20);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES ($1, $2, 'sealed', $3, $4, $5, $6) RETURNING id::text AS id`,
    [hdIndex, hex(20), payout, callbackUrl, randomBytes(32), randomUUID()],
  );
  return { id: rows[0]!.id, payout };
}

it('keeps the first wallet of a shared callback URL, releases the later ones, and never fails', async () => {
  await migrateBefore('013');
  const shared = 'https://shop.io/ipn?order_id=1234';
  const shop = await insertWallet(0, shared);
  const hijacker = await insertWallet(1, shared);
  const third = await insertWallet(2, shared);
  const alone = await insertWallet(3, 'https://shop.io/ipn?order_id=1235');
  // Another URL that differs only in case is another URL.
  const otherCase = await insertWallet(4, shared.replace('shop.io', 'SHOP.io'));

  await migrate(pool, schema);

  const { rows } = await pool.query<{ id: string; released: boolean; has_key: boolean }>(
    'SELECT id::text, callback_released_at IS NOT NULL AS released, dedupe_key IS NOT NULL AS has_key FROM wallets ORDER BY id',
  );
  expect(rows).toEqual([
    { id: shop.id, released: false, has_key: true },
    { id: hijacker.id, released: true, has_key: false },
    { id: third.id, released: true, has_key: false },
    { id: alone.id, released: false, has_key: true },
    { id: otherCase.id, released: false, has_key: true },
  ]);
  const wallets = new WalletRepository(pool);
  expect((await wallets.findOwners([shared])).map((owner) => owner.payoutAddress)).toEqual([shop.payout]);
  expect((await wallets.listReleased()).map((wallet) => wallet.payoutAddress).sort()).toEqual([hijacker.payout, third.payout].sort());
});
