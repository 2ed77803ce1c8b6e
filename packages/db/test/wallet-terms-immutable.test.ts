import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from './support/test-database';

// A wallet's terms (who is paid, how much, who is told) never change once written: not by an app
// (no app role may update them), and not by the owner either (migration 014's trigger), short of
// changing the schema itself.

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;

let db: TestDatabase;
let walletId: string;

beforeAll(async () => {
  db = await createTestDatabase('wallet_terms');
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token,
                          affiliate_address, affiliate_fee_bps, merchant_fee_bps)
     VALUES (0, $1, 'sealed', $2, 'https://shop.example/ipn', $3, $4, $5, 50, 9850) RETURNING id::text AS id`,
    [hex(20), hex(20), randomBytes(32), randomUUID(), hex(20)],
  );
  walletId = rows[0]!.id;
});
afterAll(() => db.drop());

describe('a wallet row, even for the owner', () => {
  it.each([
    ['payout_address', `'${hex(20)}'`],
    ['callback_url', `'https://evil.example/ipn'`],
    ['affiliate_address', `'${hex(20)}'`],
    ['affiliate_fee_bps', '9000'],
    ['merchant_fee_bps', '0'],
    // Migration 015's term: covered without being named, as any term a later migration adds.
    ['platform_fee_bps', '0'],
    ['hd_index', '7'],
    ['polygon_address', `'${hex(20)}'`],
  ])('refuses a change of %s', async (column, value) => {
    await expect(db.pool.query(`UPDATE wallets SET ${column} = ${value} WHERE id = $1`, [walletId])).rejects.toMatchObject({
      code: '23001',
      message: expect.stringContaining(`wallet ${walletId}: ${column} never changes once written`),
    });
  });

  it('refuses clearing the affiliate (a wallet with a split becoming one without)', async () => {
    await expect(
      db.pool.query('UPDATE wallets SET affiliate_address = NULL, affiliate_fee_bps = NULL, merchant_fee_bps = NULL WHERE id = $1', [
        walletId,
      ]),
    ).rejects.toMatchObject({
      code: '23001',
      message: expect.stringMatching(/affiliate_address, affiliate_fee_bps, merchant_fee_bps never change/),
    });
  });

  it('lets the operator release its callback once (migration 013), and nothing else', async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
       VALUES (1, $1, 'sealed', $2, 'https://shop.example/ipn?order=2', $3, $4) RETURNING id::text AS id`,
      [hex(20), hex(20), randomBytes(32), randomUUID()],
    );
    const released = rows[0]!.id;
    await expect(db.pool.query('UPDATE wallets SET dedupe_key = $1 WHERE id = $2', [randomBytes(32), released])).rejects.toMatchObject({
      message: expect.stringContaining('dedupe_key never changes'),
    });
    // release-callback (WalletRepository.releaseCallback): the release time, and the (payout, callback) key given up.
    await expect(
      db.pool.query('UPDATE wallets SET callback_released_at = now(), dedupe_key = NULL WHERE id = $1', [released]),
    ).resolves.toMatchObject({
      rowCount: 1,
    });
    await expect(db.pool.query('UPDATE wallets SET callback_released_at = NULL WHERE id = $1', [released])).rejects.toMatchObject({
      message: expect.stringContaining('callback_released_at never changes'),
    });
    await expect(
      db.pool.query(`UPDATE wallets SET callback_released_at = now() + interval '1 day' WHERE id = $1`, [released]),
    ).rejects.toMatchObject({
      code: '23001',
    });
  });

  it('lets an update that changes nothing through, and the terms are as written', async () => {
    await expect(db.pool.query('UPDATE wallets SET payout_address = payout_address WHERE id = $1', [walletId])).resolves.toMatchObject({
      rowCount: 1,
    });
    const { rows } = await db.pool.query('SELECT callback_url, affiliate_fee_bps, merchant_fee_bps FROM wallets WHERE id = $1', [walletId]);
    expect(rows[0]).toEqual({ callback_url: 'https://shop.example/ipn', affiliate_fee_bps: 50, merchant_fee_bps: 9850 });
  });
});
