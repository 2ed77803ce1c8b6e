import { randomBytes, randomUUID } from 'node:crypto';
import { migrate, readMigrations } from '../src/migrate';
import { legacySchema } from './support/legacy-schema';
import { hex } from './support/wallet-candidate';

// A deployment that has run for a while (wallets of every kind, a payment, a deposit) takes the
// migrations from 014 on, which make wallets unchangeable: the ones after it must still migrate
// the rows already there (a data migration disables the trigger around itself, knowingly).

const { pool, schema, migrateBefore } = legacySchema('upgrade');

async function insertWallet(
  hdIndex: number,
  affiliate: { address: string; bps: number; merchantBps: number | null } | null,
): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token,
                          affiliate_address, affiliate_fee_bps, merchant_fee_bps)
     VALUES ($1, $2, 'sealed', $3, $4, $5, $6, $7, $8, $9) RETURNING id::text AS id`,
    [
      hdIndex,
      hex(20),
      hex(20),
      `https://shop.example/ipn?order=${hdIndex}`,
      randomBytes(32),
      randomUUID(),
      affiliate?.address ?? null,
      affiliate?.bps ?? null,
      affiliate?.merchantBps ?? null,
    ],
  );
  return rows[0]!.id;
}

describe('upgrading a deployment that has wallets', () => {
  it('applies 014 and every later migration, and the wallets keep their terms', async () => {
    await migrateBefore('014');
    const plain = await insertWallet(0, null);
    await insertWallet(1, { address: hex(20), bps: 50, merchantBps: null });
    await insertWallet(2, { address: hex(20), bps: 200, merchantBps: 9700 });
    const before = await pool.query(
      'SELECT id, payout_address, callback_url, affiliate_address, affiliate_fee_bps, merchant_fee_bps FROM wallets ORDER BY id',
    );

    const applied = await migrate(pool, schema);

    expect(applied).toEqual(
      readMigrations()
        .filter((m) => m.name >= '014')
        .map((m) => m.name),
    );
    const after = await pool.query(
      'SELECT id, payout_address, callback_url, affiliate_address, affiliate_fee_bps, merchant_fee_bps FROM wallets ORDER BY id',
    );
    expect(after.rows).toEqual(before.rows);
    // And the trigger is on again for them.
    await expect(pool.query('UPDATE wallets SET payout_address = $1 WHERE id = $2', [hex(20), plain])).rejects.toMatchObject({
      code: '23001',
    });
  });
});
