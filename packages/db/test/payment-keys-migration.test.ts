import { randomBytes, randomUUID } from 'node:crypto';
import { migrate } from '../src/migrate';
import { PaymentRepository } from '../src/repositories/payment-repository';
import { legacySchema } from './support/legacy-schema';
import { hex } from './support/wallet-candidate';
import { sampleExpectation } from './support/payment-expectation';

// Migration 027 on a deployment that already has payments: each order's attempts so far are counted,
// so ORDER_ATTEMPTS_MAX holds from the first request after the upgrade; the old payments have no key.

const { pool, schema, migrateBefore } = legacySchema('keys_upgrade');

it("counts each wallet's payments recorded before it, and leaves them without a key", async () => {
  await migrateBefore('027');
  const address = hex(20);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES (1, $1, 'sealed', $2, 'https://shop.example/ipn?order=1', $3, $4) RETURNING id::text AS id`,
    [address, hex(20), randomBytes(32), randomUUID()],
  );
  const walletId = rows[0]!.id;
  const old = [randomUUID(), randomUUID(), randomUUID()];
  for (const id of old) {
    await pool.query(
      `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, status) VALUES ($1, $2, 25, 'USD', 'moonpay', 'a@b.io', 'creating')`,
      [id, walletId],
    );
  }

  await migrate(pool, schema);

  const counted = await pool.query('SELECT wallet_id::text, attempts::int FROM wallet_payment_attempts');
  expect(counted.rows).toEqual([{ wallet_id: walletId, attempts: 3 }]);
  const keys = await pool.query('SELECT customer_key_hash, second_chances FROM payments WHERE id = ANY($1::uuid[])', [old]);
  expect(keys.rows).toEqual(old.map(() => ({ customer_key_hash: null, second_chances: 0 })));
  // With a cap of four, the order has one attempt left.
  const payment = () => ({
    id: randomUUID(),
    polygonAddress: address,
    amount: '25',
    currency: 'USD',
    provider: 'moonpay',
    email: 'a@b.io',
    keyHash: randomBytes(32),
    expectation: sampleExpectation(),
  });
  expect(await new PaymentRepository(pool).insertManyForWallets([payment(), payment()], 4)).toEqual(['recorded', 'attempts_exhausted']);
});
