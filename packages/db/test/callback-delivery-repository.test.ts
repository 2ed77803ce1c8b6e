import { randomBytes, randomUUID } from 'node:crypto';
import { CALLBACK_DELIVERY_MOVES, CALLBACK_DELIVERY_STATUSES } from '@gateway/domain';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { CallbackDeliveryRepository, type CallbackAttemptRecord } from '../src/repositories/callback-delivery-repository';

let db: TestDatabase;
let repo: CallbackDeliveryRepository;
let walletId: string;

async function newDelivery(dueInMs = 0): Promise<string> {
  const id = randomUUID();
  await db.pool.query(
    `INSERT INTO callback_deliveries (id, wallet_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out, next_attempt_at)
     VALUES ($1, $2, 12500001, 12375001, 125000, '0xin', '0xout', now() + $3 * interval '1 millisecond')`,
    [id, walletId, dueInMs],
  );
  return id;
}

function attempt(deliveryId: string, attemptNo: number, outcome: CallbackAttemptRecord['outcome']): CallbackAttemptRecord {
  return {
    deliveryId,
    attemptNo,
    startedAt: new Date(),
    durationMs: 12,
    statusCode: 500,
    errorCode: 'http_error',
    error: 'boom',
    responseExcerpt: 'x\u0000y',
    outcome,
  };
}

async function row(id: string) {
  const { rows } = await db.pool.query(
    'SELECT status, attempt_count, next_attempt_at, delivered_at, last_error, refusals_in_row FROM callback_deliveries WHERE id = $1',
    [id],
  );
  return rows[0];
}

beforeAll(async () => {
  db = await createTestDatabase('cb_repo');
  repo = new CallbackDeliveryRepository(db.pool);
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES (1, $1, 'sealed', $1, 'https://shop.io/ipn?order=1', $2, 'tok') RETURNING id::text`,
    [`0x${'ab'.repeat(20)}`, randomBytes(32)],
  );
  walletId = rows[0]!.id;
});
afterAll(() => db.drop());

describe('CallbackDeliveryRepository', () => {
  it('claims due pending deliveries with the data of the callback, and holds them for the lease', async () => {
    const due = await newDelivery();
    const later = await newDelivery(60_000);
    const [claimed, ...rest] = await repo.claimDue([due, later], 30_000);
    expect(rest).toEqual([]);
    expect(claimed).toMatchObject({
      id: due,
      attemptNo: 1,
      failedInRound: 0,
      callbackUrl: 'https://shop.io/ipn?order=1',
      temporaryAddress: `0x${'ab'.repeat(20)}`,
      ipnToken: 'tok',
      valueCoin: 12_500_001n,
      valueForwardedCoin: 12_375_001n,
      feeCoin: 125_000n,
    });
    expect((await row(due)).next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 25_000);
    expect(await repo.claimDue([due], 30_000)).toEqual([]);
  });

  it("claims the order's figures with the delivery: all three, the total alone, or none on a row written before them", async () => {
    const [whole, totalOnly, old] = [await newDelivery(), await newDelivery(), await newDelivery()];
    await db.pool.query(
      `UPDATE callback_deliveries SET order_total_coin = 25000001, order_expected_coin = 25000000, order_state = 'paid' WHERE id = $1`,
      [whole],
    );
    await db.pool.query(`UPDATE callback_deliveries SET order_total_coin = 3500000 WHERE id = $1`, [totalOnly]);
    const claimed = new Map((await repo.claimDue([whole, totalOnly, old], 30_000)).map((delivery) => [delivery.id, delivery]));
    const figures = (id: string) => {
      const { orderTotalCoin, orderExpectedCoin, orderState } = claimed.get(id)!;
      return { orderTotalCoin, orderExpectedCoin, orderState };
    };
    expect(figures(whole)).toEqual({ orderTotalCoin: 25_000_001n, orderExpectedCoin: 25_000_000n, orderState: 'paid' });
    expect(figures(totalOnly)).toEqual({ orderTotalCoin: 3_500_000n, orderExpectedCoin: null, orderState: null });
    expect(figures(old)).toEqual({ orderTotalCoin: null, orderExpectedCoin: null, orderState: null });
  });

  it('gives one attempt to one of two workers claiming at the same time', async () => {
    const id = await newDelivery();
    const results = await Promise.all([repo.claimDue([id], 30_000), repo.claimDue([id], 30_000)]);
    expect(results.flat()).toHaveLength(1);
  });

  it('records a failure and schedules the retry; a straggler of an older attempt changes nothing but its record', async () => {
    const id = await newDelivery();
    await repo.claimDue([id], 0);
    const retryAt = new Date(Date.now() + 60_000);
    await repo.recordAttempts([attempt(id, 1, { kind: 'retry', nextAttemptAt: retryAt, refusalsInRow: 0 })]);
    expect(await row(id)).toMatchObject({ status: 'pending', attempt_count: 1, next_attempt_at: retryAt, last_error: 'boom' });

    await db.pool.query(`UPDATE callback_deliveries SET next_attempt_at = now() WHERE id = $1`, [id]);
    await repo.claimDue([id], 30_000);
    await repo.recordAttempts([attempt(id, 1, { kind: 'failed' })]);
    expect(await row(id)).toMatchObject({ status: 'pending', attempt_count: 2 });

    const { rows } = await db.pool.query('SELECT attempt_no, response_excerpt FROM callback_attempts WHERE delivery_id = $1', [id]);
    expect(rows).toEqual([{ attempt_no: 1, response_excerpt: 'x\uFFFDy' }]);
  });

  it('writes an error text holding a NUL (PostgreSQL text cannot), so the record is never refused', async () => {
    const id = await newDelivery();
    await repo.claimDue([id], 0);
    await repo.recordAttempts([{ ...attempt(id, 1, { kind: 'failed' }), errorCode: 'x\u0000', error: 'bad\u0000status' }]);
    expect(await row(id)).toMatchObject({ status: 'failed', last_error: 'bad\uFFFDstatus' });
    const { rows } = await db.pool.query('SELECT error_code, error FROM callback_attempts WHERE delivery_id = $1', [id]);
    expect(rows).toEqual([{ error_code: 'x\uFFFD', error: 'bad\uFFFDstatus' }]);
  });

  it('marks a delivery delivered on any 2xx, even from an attempt that outlived its lease', async () => {
    const id = await newDelivery();
    await repo.claimDue([id], 0);
    await repo.claimDue([id], 30_000);
    await repo.recordAttempts([attempt(id, 1, { kind: 'delivered' })]);
    const delivered = await row(id);
    expect(delivered.status).toBe('delivered');
    expect(delivered.delivered_at).toBeInstanceOf(Date);
  });

  it('releases a claim unsent, giving the attempt number back', async () => {
    const id = await newDelivery();
    const [claimed] = await repo.claimDue([id], 30_000);
    const at = new Date(Date.now() + 1_000);
    expect(await repo.releaseClaim(id, claimed!.attemptNo, at)).toBe(true);
    expect(await row(id)).toMatchObject({ attempt_count: 0, next_attempt_at: at });
    expect(await repo.releaseClaim(id, claimed!.attemptNo, at)).toBe(false);
  });

  it("keeps the merchant's refusals in a row for the next claim, and ends a delivery refused", async () => {
    const id = await newDelivery();
    await repo.claimDue([id], 0);
    const refusal = { ...attempt(id, 1, { kind: 'retry', nextAttemptAt: new Date(), refusalsInRow: 1 }), statusCode: 400 };
    await repo.recordAttempts([refusal]);
    expect(await row(id)).toMatchObject({ status: 'pending', refusals_in_row: 1 });
    const [second] = await repo.claimDue([id], 0);
    expect(second).toMatchObject({ attemptNo: 2, failedInRound: 1, refusalsInRow: 1 });

    await repo.recordAttempts([
      { ...attempt(id, 2, { kind: 'refused', refusalsInRow: 2 }), statusCode: 404, error: 'shop.io answered 404' },
    ]);
    expect(await row(id)).toMatchObject({ status: 'refused', attempt_count: 2, last_error: 'shop.io answered 404', delivered_at: null });
    const { rows } = await db.pool.query('SELECT attempt_no, status_code FROM callback_attempts WHERE delivery_id = $1 ORDER BY 1', [id]);
    expect(rows).toEqual([
      { attempt_no: 1, status_code: 400 },
      { attempt_no: 2, status_code: 404 },
    ]);
  });

  it('sets the refusals in a row back to 0 at any other answer', async () => {
    const id = await newDelivery();
    await db.pool.query('UPDATE callback_deliveries SET refusals_in_row = 3 WHERE id = $1', [id]);
    await repo.claimDue([id], 0);
    await repo.recordAttempts([attempt(id, 1, { kind: 'retry', nextAttemptAt: new Date(), refusalsInRow: 0 })]);
    expect(await row(id)).toMatchObject({ status: 'pending', refusals_in_row: 0 });
  });

  it('resends a refused delivery as a failed one: a new retry round, its refusals in a row forgotten', async () => {
    const id = await newDelivery();
    await repo.claimDue([id], 0);
    await repo.recordAttempts([attempt(id, 1, { kind: 'refused', refusalsInRow: 1 })]);
    expect(await repo.resendFailed(id)).toMatchObject({ result: 'resent' });
    expect(await repo.claimDue([id], 30_000)).toMatchObject([{ attemptNo: 2, failedInRound: 0, refusalsInRow: 0 }]);
    const { rows } = await db.pool.query('SELECT resend_count FROM callback_deliveries WHERE id = $1', [id]);
    expect(rows).toEqual([{ resend_count: 1 }]);
  });

  it.each(CALLBACK_DELIVERY_STATUSES)('resends a %s delivery exactly when the resend move starts there', async (status) => {
    const id = await newDelivery();
    await db.pool.query('UPDATE callback_deliveries SET status = $2 WHERE id = $1', [id, status]);
    const resent = (CALLBACK_DELIVERY_MOVES.resend.from as readonly string[]).includes(status);
    expect(await repo.resendFailed(id)).toEqual(
      resent ? { result: 'resent', nextAttemptAt: expect.any(Date) } : { result: 'not_failed', status },
    );
    expect((await row(id)).status).toBe(resent ? 'pending' : status);
  });

  it('holds the statuses of the module in its CHECK constraint', async () => {
    const { rows } = await db.pool.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint
       WHERE conname = 'callback_deliveries_status_check' AND connamespace = $1::regnamespace`,
      [db.schema],
    );
    expect(rows).toHaveLength(1);
    const listed = [...rows[0]!.definition.matchAll(/'([a-z_]+)'::text/g)].map((match) => match[1]);
    expect(listed.sort()).toEqual([...CALLBACK_DELIVERY_STATUSES].sort());
  });

  it('resends only failed deliveries, starting a new retry round', async () => {
    const id = await newDelivery();
    await repo.claimDue([id], 0);
    await repo.recordAttempts([attempt(id, 1, { kind: 'failed' })]);
    expect(await repo.resendFailed(id)).toMatchObject({ result: 'resent' });
    const [claimed] = await repo.claimDue([id], 30_000);
    expect(claimed).toMatchObject({ attemptNo: 2, failedInRound: 0 });
    expect(await repo.resendFailed(id)).toEqual({ result: 'not_failed', status: 'pending' });
    expect(await repo.resendFailed(randomUUID())).toEqual({ result: 'not_found' });
  });

  it('lists overdue deliveries in a window, page by page, oldest first', async () => {
    await db.pool.query(`UPDATE callback_deliveries SET status = 'delivered'`);
    const ids = [await newDelivery(-3_000), await newDelivery(-2_000), await newDelivery(-1_500), await newDelivery(-100)];
    const until = await repo.overdueCutoff(1_000);
    const first = await repo.listOverdue(2, { until });
    const second = await repo.listOverdue(2, { until }, first[1]);
    expect([...first, ...second].map((d) => d.id)).toEqual(ids.slice(0, 3));
    // A window after the first row leaves it out.
    expect((await repo.listOverdue(10, { since: first[0]!.position, until })).map((d) => d.id)).toEqual(ids.slice(1, 3));
    expect(await repo.oldestDueAgeSeconds()).toBeGreaterThan(2.5);
  });
});
