import Fastify from 'fastify';
import { CallbackDeliveryRepository } from '@gateway/db/callback-worker';
import { callbackJobId, openCallbackQueue, type CallbackQueue } from '@gateway/queue';
import { seedDeliveries, seedWallet } from '@gateway/app-testkit';
import { deleteRedisPrefix, sleep } from '@gateway/testkit';
import { CallbackReconciler } from '../../src/services/callback-reconciler';
import { useWorkerFixture } from '../support/worker-fixture';
import type { TestDatabase } from '@gateway/app-testkit';

const INTERVAL_MS = 200;
const fixture = useWorkerFixture('cbw_reconciler');
const silentLog = Fastify({ logger: false }).log;
let db: TestDatabase;
let queue: CallbackQueue;
let walletId: string;

// No worker here: the reconciler's passes are run by hand and the queue is inspected directly.
function reconciler(fullPassEveryMs = 3_600_000): CallbackReconciler {
  return new CallbackReconciler(new CallbackDeliveryRepository(db.appPool('callback-worker')), queue, silentLog, {
    intervalMs: INTERVAL_MS,
    fullPassEveryMs,
    pageSize: 3,
  });
}

async function overdueDeliveries(count: number): Promise<string[]> {
  const ids = await seedDeliveries(db.pool, Array(count).fill({ walletId }));
  await db.pool.query(`UPDATE callback_deliveries SET next_attempt_at = now() - interval '10 seconds' WHERE id = ANY($1::uuid[])`, [ids]);
  return ids;
}

beforeAll(async () => {
  db = fixture.db;
  queue = openCallbackQueue({ url: 'redis://127.0.0.1:6379', prefix: fixture.redisPrefix });
  fixture.onTeardown(() => queue.close());
  walletId = (await seedWallet(db.pool, { callbackUrl: 'https://shop.io/ipn?order=1' })).id;
});

beforeEach(() => db.pool.query(`UPDATE callback_deliveries SET status = 'delivered'`));

/** One overdue delivery (its id returned), given its job by a pass of `subject`, whose job Redis then loses. */
async function overdueDeliveryWhoseJobIsLost(subject: CallbackReconciler): Promise<string> {
  const [lost] = await overdueDeliveries(1);
  expect(await subject.reconcileOnce()).toBe(1);
  await (await queue.getJob(callbackJobId(lost!)))!.remove();
  return lost!;
}

it('gives a job to every overdue delivery without one, across pages, and to none twice', async () => {
  const subject = reconciler();
  const ids = await overdueDeliveries(7);
  expect(await subject.reconcileOnce()).toBe(7);
  // The job id is the delivery id itself.
  for (const id of ids) expect((await queue.getJob(id))?.data).toEqual({ deliveryId: id });
  expect(await subject.reconcileOnce()).toBe(0);
  expect(await queue.getJobCounts('waiting')).toMatchObject({ waiting: 7 });
  await queue.drain();
});

it('leaves deliveries that only just became due to the job they already have', async () => {
  const subject = reconciler();
  await subject.reconcileOnce();
  await seedDeliveries(db.pool, Array(2).fill({ walletId }));
  expect(await subject.reconcileOnce()).toBe(0);
  await sleep(INTERVAL_MS * 2);
  expect(await subject.reconcileOnce()).toBe(2);
  await queue.drain();
});

it('after the first pass looks only at newly overdue rows, until Redis shows it lost its data', async () => {
  const subject = reconciler();
  await overdueDeliveryWhoseJobIsLost(subject);
  expect(await subject.reconcileOnce()).toBe(0);

  // FLUSHALL, limited to this file's keys (the Redis is shared): the marker goes with the jobs.
  await deleteRedisPrefix(fixture.redisPrefix);
  expect(await subject.reconcileOnce()).toBe(1);
  await queue.drain();
});

it('walks the whole backlog again at the full-pass interval', async () => {
  const subject = reconciler(0);
  await overdueDeliveryWhoseJobIsLost(subject);
  expect(await subject.reconcileOnce()).toBe(1);
  await queue.drain();
});

it('after a job failed, walks the whole backlog at the next pass: a delivery due long before the watermark is not left a minute', async () => {
  const subject = reconciler();
  // The worker failed the job (PostgreSQL away) and BullMQ removed it; its delivery was due before the watermark.
  const lost = await overdueDeliveryWhoseJobIsLost(subject);
  expect(await subject.reconcileOnce()).toBe(0);
  subject.jobFailed();
  expect(await subject.reconcileOnce()).toBe(1);
  // Once: the next pass is incremental again.
  await (await queue.getJob(callbackJobId(lost)))!.remove();
  expect(await subject.reconcileOnce()).toBe(0);
  await queue.drain();
});

it('a pass that fails after a job failed (PostgreSQL still away) leaves the whole backlog to the next pass', async () => {
  const deliveries = new CallbackDeliveryRepository(db.appPool('callback-worker'));
  let away = false;
  const flaky = Object.assign(Object.create(deliveries) as CallbackDeliveryRepository, {
    overdueCutoff: (overdueByMs: number) =>
      away ? Promise.reject(new Error('connect ECONNREFUSED')) : deliveries.overdueCutoff(overdueByMs),
  });
  const subject = new CallbackReconciler(flaky, queue, silentLog, { intervalMs: INTERVAL_MS, fullPassEveryMs: 3_600_000, pageSize: 3 });
  await overdueDeliveryWhoseJobIsLost(subject);
  subject.jobFailed();
  away = true;
  await expect(subject.reconcileOnce()).rejects.toThrow('ECONNREFUSED');
  away = false;
  expect(await subject.reconcileOnce()).toBe(1);
  await queue.drain();
});
