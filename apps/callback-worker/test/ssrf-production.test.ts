import type { FastifyInstance } from 'fastify';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { startCallbackWorker } from '../src/app';
import { enqueueDeliveries } from '@gateway/queue';
import { loadCallbackWorkerConfig } from '../src/config';
import {
  attemptRows,
  deleteRedisKeys,
  deliveryRow,
  insertDeliveries,
  insertWallet,
  signingKeyPair,
  testRedisPrefix,
  waitUntil,
} from './support/fixtures';
import { MerchantStub } from './support/merchant-stub';
import { workerEnv } from './support/worker-env';

const redisPrefix = testRedisPrefix();
let db: TestDatabase;
let stub: MerchantStub;
let worker: FastifyInstance;

beforeAll(async () => {
  db = await createTestDatabase('cbw_ssrf');
  stub = await new MerchantStub().start();
  // The production setting: no allow-list, so only public unicast addresses may be called.
  const env = workerEnv(db, redisPrefix, [signingKeyPair('k1')], { NODE_ENV: 'production', CALLBACK_ALLOWED_CIDRS: '' });
  worker = await startCallbackWorker({ config: loadCallbackWorkerConfig(env), pool: db.appPool('callback-worker'), logger: false });
});

afterAll(async () => {
  await worker.close();
  await stub.close();
  await deleteRedisKeys(redisPrefix);
  await db.drop();
});

// https, as production requires: the guard refuses the address before any TLS.
it.each([
  ['loopback by address', () => `${stub.origin.replace('http:', 'https:')}/ipn?order=1`, /127\.0\.0\.1: loopback address/],
  ['cloud metadata (link-local)', () => 'https://169.254.169.254/latest/meta-data/?order=1', /169\.254\.169\.254: linkLocal address/],
  ['a name that resolves to loopback', () => `https://localhost:${new URL(stub.origin).port}/ipn?order=2`, /resolved from localhost/],
])('refuses %s at once, without retries, and says why', async (_case, callbackUrl, reason) => {
  const wallet = await insertWallet(db.pool, callbackUrl());
  const [id] = await insertDeliveries(db.pool, wallet.id, 1);
  await enqueueDeliveries(worker.callbackQueue, [id!]);
  await waitUntil(async () => (await deliveryRow(db.pool, id!)).status === 'failed', 10_000, 'the delivery to fail');

  expect(await deliveryRow(db.pool, id!)).toMatchObject({ status: 'failed', attempt_count: 1 });
  const attempts = await attemptRows(db.pool, id!);
  expect(attempts).toHaveLength(1);
  expect(attempts[0]).toMatchObject({ error_code: 'ssrf_refused', status_code: null });
  expect(attempts[0]?.error).toMatch(reason);
  expect(attempts[0]!.duration_ms).toBeLessThan(1000);
  expect(stub.received).toHaveLength(0);
});

it('never sends a callback over http in production (one registered before the rule): failed at once, nothing sent', async () => {
  // Loopback, so that without the rule the attempt would still reach nothing outside this machine.
  const wallet = await insertWallet(db.pool, `${stub.origin}/ipn?order=plain`);
  const [id] = await insertDeliveries(db.pool, wallet.id, 1);
  await enqueueDeliveries(worker.callbackQueue, [id!]);
  await waitUntil(async () => (await deliveryRow(db.pool, id!)).status === 'failed', 10_000, 'the delivery to fail');
  const attempts = await attemptRows(db.pool, id!);
  expect(attempts).toMatchObject([{ attempt_no: 1, error_code: 'https_required', status_code: null }]);
  expect(attempts[0]?.error).toMatch(/must use https in production/);
  expect(stub.received).toHaveLength(0);
});
