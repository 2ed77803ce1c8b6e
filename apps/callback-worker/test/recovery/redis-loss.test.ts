import type { FastifyInstance } from 'fastify';
import { CALLBACK_DELIVERY_ID_HEADER } from '@usdc-card-gateway/sdk';
import { startRedisServer, type RunningRedis, waitFor } from '@gateway/testkit';
import type { TestDatabase } from '@gateway/app-testkit';
import { countByStatus } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_redis_loss', [stub]);
// A Redis of this file's own: FLUSHALL and a restart would wipe every other test's queues on the shared one.
let redis: RunningRedis;
let db: TestDatabase;
let worker: FastifyInstance;

beforeAll(async () => {
  db = fixture.db;
  redis = await startRedisServer();
  // Slow enough answers that the loss lands in the middle of the batch.
  stub.on('/ipn', () => ({ status: 200, body: 'ok', delayMs: 100 }));
  worker = await fixture.startWorker({ env: { REDIS_URL: redis.url, WORKER_CONCURRENCY: '50', PER_HOST_CONCURRENCY: '50' } });
  fixture.onTeardown(() => redis.stop());
});

async function startBatch(order: string): Promise<string[]> {
  const { ids } = await fixture.deliver(worker, `${stub.origin}/ipn?order=${order}`, 500);
  await waitFor(
    'the batch to be under way',
    () => stub.receivedOn('/ipn').filter((r) => r.url.includes(`order=${order}&`)).length >= 50,
    20_000,
  );
  return ids;
}

async function expectEachDeliveredOnce(order: string, ids: string[]): Promise<void> {
  await waitFor('all 500 to be delivered', async () => (await countByStatus(db.pool, ids)).delivered === 500, 60_000);
  const received = stub.receivedOn('/ipn').filter((r) => r.url.includes(`order=${order}&`));
  const receivedIds = received.map((request) => request.headers[CALLBACK_DELIVERY_ID_HEADER]);
  expect(new Set(receivedIds)).toEqual(new Set(ids));
  // Attempts in flight when Redis lost its jobs hold their lease in PostgreSQL, so none is sent twice.
  expect(receivedIds).toHaveLength(500);
}

it('delivers all 500 pending callbacks, once each, after FLUSHALL empties Redis mid-batch', async () => {
  const ids = await startBatch('flush');
  await redis.flushAll();
  expect((await countByStatus(db.pool, ids)).pending ?? 0).toBeGreaterThan(100);
  await expectEachDeliveredOnce('flush', ids);
});

it('delivers all 500, once each, when Redis dies mid-batch and comes back empty a second later', async () => {
  const ids = await startBatch('restart');
  await redis.restart({ downForMs: 1_000 });
  expect((await countByStatus(db.pool, ids)).pending ?? 0).toBeGreaterThan(100);
  await expectEachDeliveredOnce('restart', ids);
  const ready = await worker.inject({ method: 'GET', url: '/readyz' });
  expect(ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
});
