import { createPool } from '@gateway/db/callback-worker';
import type { TestDatabase } from '@gateway/app-testkit';
import { waitFor, sleep } from '@gateway/testkit';
import { attemptRows, countByStatus } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

const merchant = new MerchantStub();
const fixture = useWorkerFixture('cbw_close', [merchant]);
let db: TestDatabase;

beforeAll(() => {
  db = fixture.db;
  // Answers spread over ~0.6 s, so the attempt records leave in several batches.
  merchant.on('/ipn', (_request, nth) => ({ status: 200, body: 'ok', delayMs: 200 + nth * 30 }));
});

it('finishes the callbacks in flight and commits every attempt record before it closes', async () => {
  // Its own pool, ended when the worker closes, as main.ts does: a record still waiting to be
  // written after that would be lost.
  const pool = createPool({ connectionString: db.connectionString, schema: db.schema, max: 5, app: 'callback-worker' });
  const worker = await fixture.startWorker({ env: { WORKER_CONCURRENCY: '20', PER_HOST_CONCURRENCY: '20' }, pool });
  const { ids } = await fixture.deliver(worker, `${merchant.origin}/ipn?order=77`, 20);
  await waitFor('all twenty callbacks to be in flight', () => merchant.receivedOn('/ipn').length === 20, 10_000);

  // Hold the rows, so the first record batches wait for PostgreSQL and later ones queue behind
  // them in the worker while it is asked to close.
  const holder = await db.pool.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT id FROM callback_deliveries WHERE id = ANY($1::uuid[]) FOR UPDATE', [ids]);
  let closed = false;
  const closing = worker.close().then(() => (closed = true));
  await sleep(1_500);
  expect(closed).toBe(false);
  await holder.query('COMMIT');
  holder.release();
  await closing;

  expect(await countByStatus(db.pool, ids)).toEqual({ delivered: 20 });
  for (const id of ids) expect((await attemptRows(db.pool, id)).map((attempt) => attempt.status_code)).toEqual([200]);
  expect(merchant.receivedOn('/ipn')).toHaveLength(20);
});
