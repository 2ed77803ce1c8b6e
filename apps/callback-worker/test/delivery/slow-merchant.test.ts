import { lookup as systemLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { TestDatabase } from '@gateway/app-testkit';
import { waitFor } from '@gateway/testkit';
import { attemptRows, countByStatus, deliveryRow } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

// Three merchants on three loopback addresses (Linux answers on all of 127.0.0.0/8).
const slow = new MerchantStub('127.0.0.1');
const fast = new MerchantStub('127.0.0.2');
const silent = new MerchantStub('127.0.0.3');
// A hostile merchant with a wildcard DNS record: every *.evil.com name points at it.
const evil = new MerchantStub('127.0.0.4');
const fixture = useWorkerFixture('cbw_slow', [slow, fast, silent, evil]);
let db: TestDatabase;
let worker: FastifyInstance;

/** The worker's resolver: *.evil.com resolves to the hostile merchant, every other name as usual. */
const lookup: LookupFunction = (hostname, options, callback) => {
  if (!hostname.endsWith('.evil.com')) return systemLookup(hostname, options, callback);
  if (options.all) callback(null, [{ address: '127.0.0.4', family: 4 }]);
  else callback(null, '127.0.0.4', 4);
};

async function deliver(callbackUrl: string, count: number): Promise<string[]> {
  return (await fixture.deliver(worker, callbackUrl, count)).ids;
}

beforeAll(async () => {
  db = fixture.db;
  slow.on('/hang', () => 'hang');
  silent.on('/hang', () => 'hang');
  silent.on('/drip', () => 'drip');
  evil.on('/hang', () => 'hang');
  const env = {
    WORKER_CONCURRENCY: '6',
    PER_HOST_CONCURRENCY: '2',
    CALLBACK_HEADERS_TIMEOUT_SECONDS: '4',
    // Longer than any pause of a merchant dripping a byte a second: only the deadline ends it.
    CALLBACK_BODY_TIMEOUT_SECONDS: '3',
    CALLBACK_ATTEMPT_TIMEOUT_SECONDS: '6',
  };
  worker = await fixture.startWorker({ env, lookup });
});

it('times out a merchant that never answers and schedules a retry', async () => {
  const [id] = await deliver(`${silent.origin}/hang?order=1`, 1);
  await waitFor('the first attempt to be recorded', async () => (await attemptRows(db.pool, id!)).length === 1, 15_000);
  expect((await deliveryRow(db.pool, id!)).status).toBe('pending');
  // Stop the retries: the rest of this file needs the worker's slots.
  await db.pool.query(`UPDATE callback_deliveries SET status = 'failed' WHERE id = $1`, [id]);

  const [attempt] = await attemptRows(db.pool, id!);
  expect(attempt).toMatchObject({ error_code: 'timeout', status_code: null, error: 'no response headers within 4000 ms' });
  expect(attempt!.duration_ms).toBeGreaterThanOrEqual(4000);
  // undici's timers are coarse (up to about a second late).
  expect(attempt!.duration_ms).toBeLessThan(6500);
  expect((await deliveryRow(db.pool, id!)).last_error).toBe('no response headers within 4000 ms');
});

it('keeps a slow merchant to its share of the worker, so callbacks to others still go out', async () => {
  // Twice as many hanging callbacks as the worker has slots: without a per-host bound they
  // would hold all six slots for four seconds.
  const stuck = await deliver(`${slow.origin}/hang?order=2`, 12);
  await waitFor('the slow merchant to be called', () => slow.receivedOn('/hang').length >= 2, 5_000);
  const sentAt = Date.now();
  const prompt = await deliver(`${fast.origin}/ipn?order=3`, 5);
  await waitFor('the other merchant’s callbacks', async () => (await countByStatus(db.pool, prompt)).delivered === 5, 10_000);

  expect(Date.now() - sentAt).toBeLessThan(2_500);
  // Per-host bound 2: the slow merchant never had more than two requests open.
  expect(slow.receivedOn('/hang')).toHaveLength(2);
  await db.pool.query(`UPDATE callback_deliveries SET status = 'failed' WHERE id = ANY($1::uuid[])`, [stuck]);
  // Free the worker's slots for the next tests: the attempts still hanging, and those queued behind them, end now.
  slow.on('/hang', () => ({ status: 200, body: 'ok' }));
  slow.dropConnections();
});

it('ends an attempt at its deadline when the merchant drips its answer a byte a second', async () => {
  const [id] = await deliver(`${silent.origin}/drip?order=4`, 1);
  await waitFor('the first attempt to be recorded', async () => (await attemptRows(db.pool, id!)).length === 1, 15_000);
  await db.pool.query(`UPDATE callback_deliveries SET status = 'failed' WHERE id = $1`, [id]);

  const [attempt] = await attemptRows(db.pool, id!);
  expect(attempt).toMatchObject({ error_code: 'timeout', status_code: 200, error: 'no complete answer within 6000 ms' });
  expect(attempt!.response_excerpt).toMatch(/^ok{4,6}$/);
  expect(attempt!.duration_ms).toBeGreaterThanOrEqual(6000);
  expect(attempt!.duration_ms).toBeLessThan(6500);
});

it('counts wildcard subdomains as one merchant (their registrable domain), so they cannot take every slot', async () => {
  // Twelve hanging callbacks, each to a name of its own under evil.com: per name, each would get
  // two slots and together they would hold all six of the worker's for four seconds.
  const port = new URL(evil.origin).port;
  const stuck: string[] = [];
  for (let i = 1; i <= 12; i += 1) stuck.push(...(await deliver(`http://s${i}.evil.com:${port}/hang?order=${i}`, 1)));
  await waitFor('the hostile merchant to be called', () => evil.receivedOn('/hang').length >= 2, 5_000);
  const sentAt = Date.now();
  const prompt = await deliver(`${fast.origin}/ipn?order=13`, 5);
  await waitFor('the other merchant’s callbacks', async () => (await countByStatus(db.pool, prompt)).delivered === 5, 10_000);

  expect(Date.now() - sentAt).toBeLessThan(2_500);
  expect(evil.receivedOn('/hang')).toHaveLength(2);
  expect(new Set(evil.receivedOn('/hang').map((request) => request.headers.host)).size).toBe(2);
  await db.pool.query(`UPDATE callback_deliveries SET status = 'failed' WHERE id = ANY($1::uuid[])`, [stuck]);
});
