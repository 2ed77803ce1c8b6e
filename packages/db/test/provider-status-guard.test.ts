import { randomBytes, randomUUID } from 'node:crypto';
import { providerStatusMove, type ProviderPaymentStatus } from '@gateway/domain';
import { createTestDatabase, type TestDatabase } from './support/test-database';

// The database's own guard of provider statuses (migration 026's trigger), below payment-redirect's
// column grant: a direct UPDATE, as the app's role, from every status to every other. It refuses
// the moves no report may make, whatever the code above it does (a mutant that lets paid be
// declined in the domain or the repository must still meet it), and lets through every move the
// domain allows.

const ALL: ProviderPaymentStatus[] = ['pending', 'charged', 'paid', 'declined', 'failed'];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('provider_status_guard');
});
afterAll(() => db.drop());

async function paymentAt(status: ProviderPaymentStatus, reference = 'order-A'): Promise<string> {
  const wallet = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token, key_fingerprint, platform_fee_bps)
     VALUES ((SELECT coalesce(max(hd_index), 0) + 1 FROM wallets), $1, 'sealed', '0x52908400098527886e0f7030069857d2e4169ee7',
             'https://shop.io/ipn?order=' || $2, decode($2, 'hex'), $3, 'a1b2c3d4', 100)
     RETURNING id`,
    [`0x${randomBytes(20).toString('hex')}`, randomBytes(16).toString('hex'), randomBytes(24).toString('base64url')],
  );
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, provider_status, provider_reference)
     VALUES ($1, $2, 25, 'USD', 'transfi', 'jane@shop.io', $3, $4)`,
    [id, wallet.rows[0]!.id, status, reference],
  );
  return id;
}

/** As payment-redirect's role, which holds the UPDATE grant of provider_status. */
async function move(id: string, to: ProviderPaymentStatus | null, reference = 'order-A'): Promise<'moved' | string> {
  try {
    await db
      .appPool('payment-redirect')
      .query('UPDATE payments SET provider_status = $2, provider_reference = $3 WHERE id = $1', [id, to, reference]);
    return 'moved';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe('the provider status guard (migration 026)', () => {
  it('refuses paid → declined: a paid order is final, and a late decline must not reopen the second chance', async () => {
    const paid = await paymentAt('paid');
    expect(await move(paid, 'declined')).toBe('23514');
    const { rows } = await db.pool.query('SELECT provider_status FROM payments WHERE id = $1', [paid]);
    expect(rows).toEqual([{ provider_status: 'paid' }]);
  });

  it('refuses charged → declined, a refund by another order, and going back to pending or to no status', async () => {
    expect(await move(await paymentAt('charged'), 'declined')).toBe('23514');
    expect(await move(await paymentAt('charged'), 'failed', 'order-B')).toBe('23514');
    expect(await move(await paymentAt('declined'), 'pending')).toBe('23514');
    expect(await move(await paymentAt('pending'), null)).toBe('23514');
  });

  it('lets through every move the domain allows (a refund of the same order included), and refuses every paid move', async () => {
    for (const from of ALL) {
      for (const to of ALL) {
        if (from === to) continue;
        const allowed = providerStatusMove(from, to, { refunded: true, untimed: false }).allowed;
        const outcome = await move(await paymentAt(from), to);
        expect([from, to, outcome]).toEqual([from, to, allowed ? 'moved' : '23514']);
      }
    }
  });
});
