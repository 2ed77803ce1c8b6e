import type { FastifyInstance } from 'fastify';
import { CALLBACK_DELIVERY_ID_HEADER } from '@gateway/sdk';
import { createTestDatabase, type TestDatabase } from '@gateway/testkit';
import { startCallbackWorker } from '../src/app';
import { enqueueDeliveries } from '../src/callback-queue';
import { loadCallbackWorkerConfig } from '../src/config';
import { countByStatus, deleteRedisKeys, insertDeliveries, insertWallet, signingKeyPair, testRedisPrefix, waitUntil } from './support/fixtures';
import { MerchantStub } from './support/merchant-stub';
import { workerEnv } from './support/worker-env';

const redisPrefix = testRedisPrefix();
let db: TestDatabase;
let stub: MerchantStub;
let worker: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase('cbw_redis_loss');
  stub = await new MerchantStub().start();
  // Slow enough answers that the flush lands in the middle of the batch.
  stub.on('/ipn', () => ({ status: 200, body: 'ok', delayMs: 100 }));
  const env = workerEnv(db, redisPrefix, [signingKeyPair('k1')], { WORKER_CONCURRENCY: '50', PER_HOST_CONCURRENCY: '50' });
  worker = await startCallbackWorker({ config: loadCallbackWorkerConfig(env), pool: db.pool, logger: false });
});

afterAll(async () => {
  await worker.close();
  await stub.close();
  await deleteRedisKeys(redisPrefix);
  await db.drop();
});

it('delivers all 500 pending callbacks, once each, after Redis loses every job', async () => {
  const wallet = await insertWallet(db.pool, `${stub.origin}/ipn?order=500`);
  const ids = await insertDeliveries(db.pool, wallet.id, 500);
  await enqueueDeliveries(worker.callbackQueue, ids);
  await waitUntil(() => stub.received.length >= 50, 20_000, 'the batch to be under way');

  // FLUSHALL, limited to this test's keys: the Redis here is shared with other test runs, so a
  // real FLUSHALL would wipe their queues too. Waiting, delayed and active jobs all go.
  const deleted = await deleteRedisKeys(redisPrefix);
  expect(deleted).toBeGreaterThan(0);
  const pendingAtFlush = (await countByStatus(db.pool, ids)).pending ?? 0;
  expect(pendingAtFlush).toBeGreaterThan(100);

  await waitUntil(async () => (await countByStatus(db.pool, ids)).delivered === 500, 60_000, 'all 500 to be delivered');
  const receivedIds = stub.received.map((request) => request.headers[CALLBACK_DELIVERY_ID_HEADER]);
  expect(new Set(receivedIds)).toEqual(new Set(ids));
  // Attempts in flight at the flush hold their lease in PostgreSQL, so none is sent twice.
  expect(receivedIds).toHaveLength(500);
});
