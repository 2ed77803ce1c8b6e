import type { FastifyInstance } from 'fastify';
import { createPool } from '@gateway/db/callback-worker';
import { CALLBACK_DELIVERY_ID_HEADER } from '@usdc-card-gateway/sdk';
import { findFreePort, startTcpForwarder, waitFor, sleep } from '@gateway/testkit';
import type { TestDatabase } from '@gateway/app-testkit';
import { countByStatus } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

// Under a loaded CI runner the 300 deliveries and the retries after the outage take longer than jest's default.
jest.setTimeout(120_000);

const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_pg_outage', [stub]);
let db: TestDatabase;
let worker: FastifyInstance;
// The worker reaches PostgreSQL through this forwarder; closing it is PostgreSQL going away for the worker only.
let forwarder: { close(): Promise<void> };
let forwarderPort: number;
let upstreamPort: number;

beforeAll(async () => {
  db = fixture.db;
  stub.on('/ipn', () => ({ status: 200, body: 'ok', delayMs: 50 }));
  const direct = new URL(db.connectionString);
  upstreamPort = Number(direct.port || 5432);
  forwarderPort = await findFreePort();
  forwarder = await startTcpForwarder(forwarderPort, upstreamPort);
  const viaForwarder = Object.assign(new URL(db.connectionString), { port: String(forwarderPort) }).toString();
  const pool = createPool({ connectionString: viaForwarder, schema: db.schema, max: 5, app: 'callback-worker' });
  worker = await fixture.startWorker({
    env: {
      DATABASE_URL: viaForwarder,
      WORKER_CONCURRENCY: '50',
      PER_HOST_CONCURRENCY: '50',
      // Lease: 6 + 5 = 11 s, so a claim PostgreSQL committed but whose answer the outage lost is sent within the wait below.
      CALLBACK_ATTEMPT_TIMEOUT_SECONDS: '6',
    },
    pool,
  });
  fixture.onTeardown(() => forwarder.close());
});

it('delivers every callback after PostgreSQL goes away mid-batch for two seconds, and sends none again unrecorded', async () => {
  const { ids } = await fixture.deliver(worker, `${stub.origin}/ipn?order=outage`, 300);
  await waitFor('the batch to be under way', () => stub.received.length >= 60, 20_000);

  await forwarder.close();
  const down = await worker.inject({ method: 'GET', url: '/readyz' });
  expect(down.statusCode).toBe(503);
  expect(down.json()).toMatchObject({ checks: { postgres: 'failing' } });
  await sleep(2_000);
  forwarder = await startTcpForwarder(forwarderPort, upstreamPort);

  // Within a lease or two of PostgreSQL's return: a job the outage failed is recreated at the reconciler's next pass,
  // not at its next full pass a minute later (that was the slow path).
  await waitFor('all 300 to be delivered', async () => (await countByStatus(db.pool, ids)).delivered === 300, 30_000);
  expect((await worker.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  const receivedIds = stub.received.map((request) => String(request.headers[CALLBACK_DELIVERY_ID_HEADER]));
  expect(new Set(receivedIds)).toEqual(new Set(ids));
  // The attempts answered while PostgreSQL was away kept their records and retried them while their
  // leases (11 s) held the rows: every callback the merchant received is an attempt in the log, and
  // each delivery was answered 2xx once. A record lost in the outage would show as a callback sent
  // twice with one attempt recorded.
  const receivedPerDelivery = new Map<string, number>();
  for (const id of receivedIds) receivedPerDelivery.set(id, (receivedPerDelivery.get(id) ?? 0) + 1);
  const recorded = await attemptsPerDelivery(ids);
  expect(Object.fromEntries(receivedPerDelivery)).toEqual(Object.fromEntries([...recorded].map(([id, attempts]) => [id, attempts.total])));
  expect([...recorded.values()].every((attempts) => attempts.answered2xx === 1)).toBe(true);
  // With timeouts a starved CPU cannot reach, no attempt failed: one callback each.
  expect(receivedIds).toHaveLength(300);
});

async function attemptsPerDelivery(ids: readonly string[]): Promise<Map<string, { total: number; answered2xx: number }>> {
  const { rows } = await db.pool.query<{ id: string; total: number; answered2xx: number }>(
    `SELECT delivery_id::text AS id, count(*)::int AS total,
            count(*) FILTER (WHERE status_code BETWEEN 200 AND 299)::int AS "answered2xx"
     FROM callback_attempts WHERE delivery_id = ANY($1::uuid[]) GROUP BY delivery_id`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, { total: row.total, answered2xx: row.answered2xx }]));
}
