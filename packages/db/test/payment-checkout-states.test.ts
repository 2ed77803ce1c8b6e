import { randomBytes, randomUUID } from 'node:crypto';
import { PAYMENT_MOVES, PAYMENT_STATUSES, type PaymentStatus } from '@gateway/domain';
import { createTestDatabase, type TestDatabase } from '@gateway/testkit';
import { PaymentReceiptRepository, PaymentRepository } from '../src/repositories/payment-repository';
import { WalletRepository } from '../src/repositories/wallet-repository';

let db: TestDatabase;
let payments: PaymentRepository;
const polygonAddress = `0x${'7'.repeat(40)}`;

beforeAll(async () => {
  db = await createTestDatabase('payment_checkout_states');
  payments = new PaymentRepository(db.pool);
  await new WalletRepository(db.pool).createOrGetMany([
    {
      hdIndex: 1n,
      keyFingerprint: 'a1b2c3d4',
      platformFeeBps: 100,
      polygonAddress,
      addressIn: 'k1.x',
      payoutAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
      callbackUrl: 'https://shop.io/ipn?o=1',
      dedupeKey: randomBytes(32),
      ipnToken: randomBytes(24).toString('base64url'),
    },
  ]);
});
afterAll(() => db.drop());

async function paymentIn(status: PaymentStatus, provider = 'moonpay'): Promise<string> {
  const id = randomUUID();
  await payments.insertManyForWallets([{ id, polygonAddress, amount: '25.00', currency: 'USD', provider, email: 'jane@shop.io' }]);
  if (status !== 'creating') {
    await db.pool.query(
      `UPDATE payments SET status = $2, checkout_url = CASE WHEN $2 = 'redirected' THEN 'https://x.example/' END WHERE id = $1`,
      [id, status],
    );
  }
  return id;
}

describe('the payment moves, as the domain defines them', () => {
  it.each(PAYMENT_STATUSES)('recordCheckout from %s: allowed only from creating', async (status) => {
    const id = await paymentIn(status);
    expect(await payments.recordCheckouts([{ id, checkoutUrl: 'https://checkout.example/1' }])).toEqual([
      PAYMENT_MOVES.recordCheckout.from.some((from) => from === status),
    ]);
  });

  it.each(PAYMENT_STATUSES)('failCheckout from %s: allowed only from creating', async (status) => {
    const id = await paymentIn(status);
    expect(await payments.failCheckout(id, 'refused: 422')).toBe(PAYMENT_MOVES.failCheckout.from.some((from) => from === status));
  });

  it('never lets a redirected payment lose its URL, nor a checkout_failed one become redirected', async () => {
    const redirected = await paymentIn('redirected');
    await expect(db.pool.query('UPDATE payments SET checkout_url = NULL WHERE id = $1', [redirected])).rejects.toMatchObject({
      code: '23514',
    });
    const failed = await paymentIn('checkout_failed');
    expect(await payments.recordCheckouts([{ id: failed, checkoutUrl: 'https://late.example/' }])).toEqual([false]);
    const { rows } = await db.pool.query('SELECT status, checkout_url FROM payments WHERE id = $1', [failed]);
    expect(rows[0]).toEqual({ status: 'checkout_failed', checkout_url: null });
  });
});

describe("the customer's link: checkouts that expire, single use, and forms", () => {
  it.each(PAYMENT_STATUSES)('renewCheckout from %s: allowed only from redirected and checkout_failed', async (status) => {
    const id = await paymentIn(status);
    const attempt = status === 'redirected' ? 1 : 0;
    await db.pool.query('UPDATE payments SET checkout_attempts = $2 WHERE id = $1', [id, attempt]);
    expect(await payments.renewCheckout({ id, attempt: attempt + 1, checkoutUrl: 'https://fresh.example/' })).toBe(
      PAYMENT_MOVES.renewCheckout.from.some((from) => from === status),
    );
  });

  it('keeps a form checkout, its expiry and single use; hands a single-use one out once; renews only the checkout read', async () => {
    const id = await paymentIn('creating', 'simplex');
    const expiresAt = new Date(Date.UTC(2026, 10, 25, 12, 5, 0));
    const fields = { payment_id: id, version: '1', return_url_success: 'https://pay.example/payment/x' };
    expect(
      await payments.recordCheckouts([
        { id, checkoutUrl: 'https://checkout.example/payments/new', formFields: fields, expiresAt, singleUse: true },
      ]),
    ).toEqual([true]);
    const read = await payments.findCheckout(id);
    expect(read).toMatchObject({
      status: 'redirected',
      provider: 'simplex',
      amount: '25.00',
      polygonAddress,
      hasDeposit: false,
      attempts: 1,
      checkout: { url: 'https://checkout.example/payments/new', formFields: fields, expiresAt, singleUse: true, servedAt: null },
    });
    expect(await payments.claimSingleUse(id, 1)).toBe(true);
    expect(await payments.claimSingleUse(id, 1)).toBe(false);
    expect((await payments.findCheckout(id))?.checkout?.servedAt).toBeInstanceOf(Date);
    // Two loads renew the same expired checkout: the first records the second attempt, the other is told.
    const fresh = { id, attempt: 2, checkoutUrl: 'https://checkout.example/2', served: true, singleUse: true };
    expect(await payments.renewCheckout(fresh)).toBe(true);
    expect(await payments.renewCheckout({ ...fresh, checkoutUrl: 'https://checkout.example/3' })).toBe(false);
    expect(await payments.findCheckout(id)).toMatchObject({
      attempts: 2,
      checkout: { url: 'https://checkout.example/2', formFields: null },
    });
    expect(await payments.claimSingleUse(id, 2)).toBe(false);
    expect(await payments.findCheckout(randomUUID())).toBeUndefined();
  });
});

describe('a webhook finds its payment', () => {
  const receipts = () => new PaymentReceiptRepository(db.pool);
  const update = (match: object, provider = 'moonpay') =>
    receipts().recordProviderStatus({ providers: [provider], match, status: 'pending', rawStatus: 'pending' });

  it('by our id, by the provider reference, or as the latest payment of that provider into the wallet', async () => {
    const older = await paymentIn('redirected', 'rampnetwork');
    const latest = await paymentIn('redirected', 'rampnetwork');
    await db.pool.query(`UPDATE payments SET created_at = created_at - interval '1 hour' WHERE id = $1`, [older]);
    const byReference = await paymentIn('redirected', 'banxa');
    await db.pool.query(`UPDATE payments SET provider_reference = 'bx-77' WHERE id = $1`, [byReference]);

    expect(await update({ walletAddress: polygonAddress.toUpperCase().replace('0X', '0x') }, 'rampnetwork')).toBe('updated');
    const status = async (id: string) =>
      (await db.pool.query('SELECT provider_status FROM payments WHERE id = $1', [id])).rows[0].provider_status;
    expect(await status(latest)).toBe('pending');
    expect(await status(older)).toBeNull();
    expect(await update({ providerReference: 'bx-77' }, 'banxa')).toBe('updated');
    expect(await status(byReference)).toBe('pending');
    // Another provider's reference, or another provider's payment, is not found.
    expect(await update({ providerReference: 'bx-77' }, 'moonpay')).toBe('unknown_payment');
    expect(await update({ paymentId: latest }, 'moonpay')).toBe('unknown_payment');
    // Junk never reaches PostgreSQL as a uuid or an address.
    expect(await update({ paymentId: "x' OR 1=1 --", walletAddress: 'nope' })).toBe('unknown_payment');
  });

  it('prefers our id over a reference or the wallet', async () => {
    const named = await paymentIn('redirected', 'mercuryo');
    const newer = await paymentIn('redirected', 'mercuryo');
    await db.pool.query(`UPDATE payments SET created_at = created_at - interval '1 hour' WHERE id = $1`, [named]);
    expect(await update({ paymentId: named, walletAddress: polygonAddress }, 'mercuryo')).toBe('updated');
    expect((await db.pool.query('SELECT id FROM payments WHERE provider_status IS NOT NULL AND provider = $1', ['mercuryo'])).rows).toEqual(
      [{ id: named }],
    );
    expect(newer).not.toBe(named);
  });
});
