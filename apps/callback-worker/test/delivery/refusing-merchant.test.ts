import type { FastifyInstance } from 'fastify';
import { callbackJobId } from '@gateway/queue';
import { runGateway, type TestDatabase } from '@gateway/app-testkit';
import { waitFor } from '@gateway/testkit';
import { attemptRows, deliveryRow } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

// A merchant that answers a 4xx other than 408, 425 and 429 has refused: the short schedule (100,
// 200, 400 ms here, workerEnv), then `refused`. The long schedule is 8 s here, so an attempt on it
// stands apart from the refusals' even on a starved CPU.
const LONG_DELAY_MS = 8_000;
const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_refusals', [stub]);

let db: TestDatabase;
let worker: FastifyInstance;

beforeAll(async () => {
  db = fixture.db;
  worker = await fixture.startWorker({
    env: { CALLBACK_RETRY_FIRST_DELAY_MS: String(LONG_DELAY_MS), CALLBACK_RETRY_MAX_DELAY_MS: String(LONG_DELAY_MS) },
  });
});

async function waitForStatus(id: string, status: string, timeoutMs = 20_000) {
  await waitFor(`delivery ${id} to be ${status}`, async () => (await deliveryRow(db.pool, id)).status === status, timeoutMs);
}

async function refusalsInRow(id: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>('SELECT refusals_in_row AS n FROM callback_deliveries WHERE id = $1', [id]);
  return rows[0]!.n;
}

it('ends a delivery the merchant answers 400 refused after the short schedule, every answer recorded; an operator resend delivers it', async () => {
  // The official WooCommerce plugin's answer to a repeated callback of an order already paid.
  let paid = false;
  stub.on('/woocommerce', () => (paid ? { status: 200, body: 'ok' } : { status: 400, body: 'Order already paid' }));
  const { ids } = await fixture.deliver(worker, `${stub.origin}/woocommerce?wc-api=paygate&order=77`, 1);
  const id = ids[0]!;
  await waitForStatus(id, 'refused');

  const attempts = await attemptRows(db.pool, id);
  // 1 attempt + CALLBACK_REFUSAL_RETRY_MAX_RETRIES (3) retries.
  expect(attempts.map((a) => [a.attempt_no, a.status_code, a.error_code, a.response_excerpt])).toEqual([
    [1, 400, 'http_error', 'Order already paid'],
    [2, 400, 'http_error', 'Order already paid'],
    [3, 400, 'http_error', 'Order already paid'],
    [4, 400, 'http_error', 'Order already paid'],
  ]);
  // The short schedule: 100, 200, 400 ms (±20%), each far below the long schedule's 8 s.
  const gaps = attempts.slice(1).map((a, i) => a.started_at.getTime() - attempts[i]!.started_at.getTime());
  expect(gaps[0]).toBeGreaterThanOrEqual(80);
  expect(gaps[2]).toBeGreaterThanOrEqual(320);
  for (const gap of gaps) expect(gap).toBeLessThan(LONG_DELAY_MS / 2);
  const row = await deliveryRow(db.pool, id);
  expect(row).toMatchObject({ status: 'refused', attempt_count: 4, delivered_at: null });
  expect(row.last_error).toMatch(/^127\.0\.0\.1:\d+ answered 400: refused 4 time\(s\) in a row .*an operator can resend it$/);
  expect(await worker.callbackQueue.getJob(callbackJobId(id))).toBeUndefined();
  expect(stub.receivedOn('/woocommerce')).toHaveLength(4);

  const metrics = (await worker.inject({ method: 'GET', url: '/metrics' })).body;
  expect(metrics).toMatch(/callback_attempts_total\{outcome="refused",error_code="http_error",service="callback-worker"\} 1\n/);
  expect(metrics).toMatch(/callback_deliveries_total\{outcome="refused",service="callback-worker"\} 1\n/);
  expect(metrics).toContain(`callback_deliveries_refused_total{origin="${stub.origin}",service="callback-worker"} 1\n`);

  // The shop fixed (or the operator agreed with it): resent as a failed delivery is, with a new round.
  paid = true;
  const resend = await runGateway(['callbacks', 'resend', id], fixture.env());
  expect([resend.code, resend.stderr]).toEqual([0, '']);
  await waitForStatus(id, 'delivered');
  expect(await deliveryRow(db.pool, id)).toMatchObject({ attempt_count: 5, resend_count: 1 });
  expect(await refusalsInRow(id)).toBe(0);
  expect((await attemptRows(db.pool, id)).at(-1)).toMatchObject({ attempt_no: 5, status_code: 200 });
}, 60_000);

it('keeps a merchant answering 503, or 429, on the long schedule: no refusal, still pending after the refusing one ended', async () => {
  stub.on('/unavailable', () => ({ status: 503, body: 'maintenance' }));
  stub.on('/too-many', () => ({ status: 429, body: 'slow down' }));
  stub.on('/not-found', () => ({ status: 404, body: 'no such route' }));
  const unavailable = (await fixture.deliver(worker, `${stub.origin}/unavailable?order=1`, 1)).ids[0]!;
  const tooMany = (await fixture.deliver(worker, `${stub.origin}/too-many?order=2`, 1)).ids[0]!;
  const notFound = (await fixture.deliver(worker, `${stub.origin}/not-found?order=3`, 1)).ids[0]!;
  await waitForStatus(notFound, 'refused');

  for (const [id, statusCode] of [
    [unavailable, 503],
    [tooMany, 429],
  ] as const) {
    // Attempts first, then the row: its next attempt time only moves on from what they say.
    const attempts = await attemptRows(db.pool, id);
    const row = await deliveryRow(db.pool, id);
    expect([statusCode, row.status, await refusalsInRow(id)]).toEqual([statusCode, 'pending', 0]);
    expect([statusCode, attempts[0]]).toMatchObject([statusCode, { attempt_no: 1, status_code: statusCode, error_code: 'http_error' }]);
    // The next attempt is due after the long schedule's delay (8 s ± 20%), from the last one's end.
    expect(row.next_attempt_at.getTime() - attempts.at(-1)!.started_at.getTime()).toBeGreaterThanOrEqual(LONG_DELAY_MS * 0.8);
  }
  // …and they are tried again then, still pending.
  for (const id of [unavailable, tooMany]) {
    await waitFor(`a second attempt of ${id}`, async () => (await attemptRows(db.pool, id)).length >= 2, 30_000);
    const [first, second] = await attemptRows(db.pool, id);
    expect(second!.started_at.getTime() - first!.started_at.getTime()).toBeGreaterThanOrEqual(LONG_DELAY_MS * 0.8);
    expect((await deliveryRow(db.pool, id)).status).toBe('pending');
  }
  // The rest of their long schedule is none of this test's business.
  await db.pool.query(`UPDATE callback_deliveries SET status = 'failed' WHERE id = ANY($1::uuid[])`, [[unavailable, tooMany]]);
}, 60_000);
