import { randomBytes, randomUUID } from 'node:crypto';
import { PAYMENT_MOVES, PAYMENT_STATUSES, type PaymentStatus } from '@gateway/domain';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { PaymentRepository } from '../src/repositories/payment-repository';
import { ProviderStatusRepository } from '../src/repositories/provider-status-repository';
import { WalletRepository } from '../src/repositories/wallet-repository';
import { sampleExpectation } from './support/payment-expectation';

let db: TestDatabase;
let payments: PaymentRepository;
const polygonAddress = `0x${'7'.repeat(40)}`;

beforeAll(async () => {
  db = await createTestDatabase('payment_checkout_states');
  payments = new PaymentRepository(db.pool);
  await walletAt(polygonAddress, 1n);
});

/** A wallet whose temporary address is `address`. */
async function walletAt(address: string, hdIndex: bigint): Promise<void> {
  await new WalletRepository(db.pool).createOrGetMany([
    {
      hdIndex,
      keyFingerprint: 'a1b2c3d4',
      platformFeeBps: 100,
      polygonAddress: address,
      addressIn: `k1.${hdIndex}`,
      payoutAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
      callbackUrl: `https://shop.io/ipn?o=${hdIndex}`,
      dedupeKey: randomBytes(32),
      ipnToken: randomBytes(24).toString('base64url'),
    },
  ]);
}
afterAll(() => db.drop());

async function paymentIn(status: PaymentStatus, provider = 'moonpay', wallet = polygonAddress): Promise<string> {
  const id = randomUUID();
  await payments.insertManyForWallets(
    [
      {
        id,
        polygonAddress: wallet,
        amount: '25.00',
        currency: 'USD',
        provider,
        email: 'jane@shop.io',
        keyHash: randomBytes(32),
        expectation: sampleExpectation(),
      },
    ],
    1000,
  );
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

async function status(id: string): Promise<string | null> {
  return (await db.pool.query('SELECT provider_status FROM payments WHERE id = $1', [id])).rows[0].provider_status;
}

async function reference(id: string): Promise<string | null> {
  return (await db.pool.query('SELECT provider_reference FROM payments WHERE id = $1', [id])).rows[0].provider_reference;
}

async function providerStatuses(): Promise<Record<string, string | null>> {
  const { rows } = await db.pool.query<{ id: string; provider_status: string | null }>('SELECT id, provider_status FROM payments');
  return Object.fromEntries(rows.map((row) => [row.id, row.provider_status]));
}
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
  const statuses = () => new ProviderStatusRepository(db.pool);
  // As the webhook route passes an adapter's event: the provider's reference both to match by and to record.
  const update = (match: { paymentId?: string; providerReference?: string; walletAddress?: string }, provider = 'moonpay') =>
    statuses().recordProviderStatus({
      providers: [provider],
      match,
      status: 'pending',
      rawStatus: 'pending',
      ...(match.providerReference ? { providerReference: match.providerReference } : {}),
    });

  it('by our id, by the provider reference, or as the latest payment of that provider into the wallet', async () => {
    const older = await paymentIn('redirected', 'rampnetwork');
    const latest = await paymentIn('redirected', 'rampnetwork');
    await db.pool.query(`UPDATE payments SET created_at = created_at - interval '1 hour' WHERE id = $1`, [older]);
    const byReference = await paymentIn('redirected', 'banxa');
    await db.pool.query(`UPDATE payments SET provider_reference = 'bx-77' WHERE id = $1`, [byReference]);

    expect(await update({ walletAddress: polygonAddress.toUpperCase().replace('0X', '0x') }, 'rampnetwork')).toBe('updated');
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

  // A webhook updates only its own provider's payment: never another provider's or another customer's.
  describe('never relabels a payment it does not name', () => {
    // Each test its own wallet: which payment is a wallet's latest depends on no other test.
    let wallet: string;
    let walletMatch: string;
    let hdIndex = 100n;
    beforeEach(async () => {
      hdIndex += 1n;
      wallet = `0x${hdIndex.toString(16).padStart(40, 'a')}`;
      walletMatch = wallet.toUpperCase().replace('0X', '0x');
      await walletAt(wallet, hdIndex);
    });

    it('naming our payment id: exactly that payment, or nothing (never the wallet or reference fallback)', async () => {
      const moonpayPayment = await paymentIn('redirected', 'moonpay', wallet);
      const topperPayment = await paymentIn('redirected', 'topper', wallet);
      await db.pool.query(`UPDATE payments SET provider_reference = 'tp-1' WHERE id = $1`, [topperPayment]);
      const before = await providerStatuses();
      // Another provider's payment id, an id of no payment, and an id that cannot be ours, each with
      // the wallet and a reference that would find a topper payment: matched by none of them.
      for (const paymentId of [moonpayPayment, randomUUID(), 'order-1234']) {
        expect(await update({ paymentId, providerReference: 'tp-1', walletAddress: walletMatch }, 'topper')).toBe('unknown_payment');
      }
      expect(await providerStatuses()).toEqual(before);
      // Named, and the provider's: updated, its order followed from then on; another order under our id is not.
      expect(await update({ paymentId: topperPayment, providerReference: 'tp-1', walletAddress: walletMatch }, 'topper')).toBe('updated');
      expect(await update({ paymentId: topperPayment, providerReference: 'tp-2', walletAddress: walletMatch }, 'topper')).toBe(
        'unknown_payment',
      );
      expect(await status(topperPayment)).toBe('pending');
      expect(await status(moonpayPayment)).toBeNull();
    });

    it("by the wallet alone: only the wallet's latest payment of that provider the provider has not named yet", async () => {
      const unnamed = await paymentIn('redirected', 'rampnetwork', wallet);
      const named = await paymentIn('redirected', 'rampnetwork', wallet);
      await db.pool.query(`UPDATE payments SET created_at = created_at - interval '1 hour' WHERE id = $1`, [unnamed]);
      await db.pool.query(`UPDATE payments SET provider_reference = 'ramp-A' WHERE id = $1`, [named]);

      // Another purchase into the same wallet never relabels the payment Ramp already named (ramp-A).
      expect(await update({ providerReference: 'ramp-B', walletAddress: walletMatch }, 'rampnetwork')).toBe('updated');
      expect(await status(named)).toBeNull();
      expect(await status(unnamed)).toBe('pending');
      // A purchase under way names no payment: anyone may open one to a known wallet.
      expect(await reference(unnamed)).toBeNull();
      // Each purchase's own reference still finds its payment.
      expect(await update({ providerReference: 'ramp-A', walletAddress: walletMatch }, 'rampnetwork')).toBe('updated');
      expect(await status(named)).toBe('pending');
      // Another provider's webhook naming the wallet finds no Ramp payment.
      expect(await update({ walletAddress: walletMatch }, 'alchemypay')).toBe('unknown_payment');
    });

    it('Ramp: only the purchase that paid names the payment; no purchase found by the wallet alone ends it', async () => {
      const payment = await paymentIn('redirected', 'rampnetwork', wallet);
      const ramp = (providerReference: string, status: 'pending' | 'paid' | 'failed', rawStatus: string) =>
        statuses().recordProviderStatus({
          providers: ['rampnetwork'],
          match: { providerReference, walletAddress: walletMatch },
          status,
          rawStatus,
          providerReference,
        });
      // Someone else's purchase to this wallet, created first: under way it names nothing, and its end is not this payment's.
      expect(await ramp('ramp-other', 'pending', 'INITIALIZED')).toBe('updated');
      expect(await ramp('ramp-other', 'failed', 'EXPIRED')).toBe('unknown_payment');
      expect([await status(payment), await reference(payment)]).toEqual(['pending', null]);
      // The customer's purchase is created after it: still nothing named.
      expect(await ramp('ramp-mine', 'pending', 'INITIALIZED')).toBe('updated');
      expect(await ramp('ramp-other', 'failed', 'CANCELLED')).toBe('unknown_payment');
      expect([await status(payment), await reference(payment)]).toEqual(['pending', null]);
      // The purchase that paid names the payment; the other one's outcome is then another order's.
      expect(await ramp('ramp-mine', 'paid', 'RELEASED')).toBe('updated');
      expect([await status(payment), await reference(payment)]).toEqual(['paid', 'ramp-mine']);
      expect(await ramp('ramp-other', 'paid', 'RELEASED')).toBe('unknown_payment');
    });

    it('a payment another webhook of the provider names while this one waits for its lock is left to that one', async () => {
      const unnamed = await paymentIn('redirected', 'rampnetwork', wallet);
      const holder = await db.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM payments WHERE id = $1 FOR UPDATE', [unnamed]);
        const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        // Found by the wallet (no reference yet), then waiting for the row.
        const waiting = update({ providerReference: 'ramp-E', walletAddress: walletMatch }, 'rampnetwork');
        // Asked by the holder itself (the pool may have no third connection), a fresh statistics snapshot each time.
        for (let blocked = false; !blocked; ) {
          await holder.query('SELECT pg_stat_clear_snapshot()');
          const { rows } = await holder.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [holderPid]);
          blocked = rows.length > 0;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await holder.query(`UPDATE payments SET provider_reference = 'ramp-D', provider_status = 'pending' WHERE id = $1`, [unnamed]);
        await holder.query('COMMIT');
        expect(await waiting).toBe('unknown_payment');
        expect(await reference(unnamed)).toBe('ramp-D');
      } finally {
        holder.release();
      }
    });
  });

  it("a renewed checkout's reference is followed until a report names an order; then a renewal leaves that order", async () => {
    const id = await paymentIn('creating', 'sardine');
    expect(await payments.recordCheckouts([{ id, checkoutUrl: 'https://checkout.example/1', providerReference: `${id}:1` }])).toEqual([
      true,
    ]);
    expect(await payments.renewCheckout({ id, attempt: 2, checkoutUrl: 'https://checkout.example/2', providerReference: `${id}:2` })).toBe(
      true,
    );
    expect(await reference(id)).toBe(`${id}:2`);
    // The customer paid in the first tab: that order is ours too, and is followed from then on.
    const report = (providerReference: string) =>
      statuses().recordProviderStatus({
        providers: ['sardine'],
        match: { paymentId: id },
        status: 'pending',
        rawStatus: 'Processing',
        providerReference,
      });
    expect(await report(`${id}:1`)).toBe('updated');
    expect(await reference(id)).toBe(`${id}:1`);
    expect(await payments.renewCheckout({ id, attempt: 3, checkoutUrl: 'https://checkout.example/3', providerReference: `${id}:3` })).toBe(
      true,
    );
    expect(await reference(id)).toBe(`${id}:1`);
    expect(await report(`${id}:3`)).toBe('unknown_payment');
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

describe("a checkout's first status look-up, scheduled in the same statement", () => {
  const dueAt = async (id: string) =>
    (await db.pool.query<{ due: Date | null }>('SELECT status_poll_due_at AS due FROM payments WHERE id = $1', [id])).rows[0]?.due;

  it('is set where asked, left unset where not, and an earlier one already set is kept', async () => {
    const [asked, notAsked, earlier] = [await paymentIn('creating'), await paymentIn('creating'), await paymentIn('creating')];
    const due = new Date(Date.now() + 30_000);
    const soon = new Date(Date.now() + 1_000);
    await db.pool.query('UPDATE payments SET status_poll_due_at = $2 WHERE id = $1', [earlier, soon]);
    expect(
      await payments.recordCheckouts([
        { id: asked, checkoutUrl: 'https://checkout.example/a', statusPollDueAt: due },
        { id: notAsked, checkoutUrl: 'https://checkout.example/b' },
        { id: earlier, checkoutUrl: 'https://checkout.example/c', statusPollDueAt: due },
      ]),
    ).toEqual([true, true, true]);
    expect(await dueAt(asked)).toEqual(due);
    expect(await dueAt(notAsked)).toBeNull();
    expect(await dueAt(earlier)).toEqual(soon);
  });

  it('leaves a payment whose provider status is final unscheduled', async () => {
    const paid = await paymentIn('creating');
    await db.pool.query("UPDATE payments SET provider_status = 'paid' WHERE id = $1", [paid]);
    expect(
      await payments.recordCheckouts([
        { id: paid, checkoutUrl: 'https://checkout.example/p', statusPollDueAt: new Date(Date.now() + 30_000) },
      ]),
    ).toEqual([true]);
    expect(await dueAt(paid)).toBeNull();
  });
});
