import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import {
  CALLBACK_JOB_NAME,
  enqueueDeliveries,
  hasQueueMarker,
  haveCallbackJobs,
  openCallbackQueue,
  QUEUE_NAMES,
  redisConnection,
  setQueueMarker,
  startCallbackJobWorker,
  type CallbackQueue,
} from '../src';

const redis = { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: `test-${randomUUID()}` };
let queue: CallbackQueue;

beforeAll(() => {
  queue = openCallbackQueue(redis);
});

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
});

describe('haveCallbackJobs', () => {
  it('tells, in order, which deliveries have a job, and forgets a job once it ran', async () => {
    const queued = [randomUUID(), randomUUID()];
    const missing = randomUUID();
    await enqueueDeliveries(queue, queued);
    expect(await haveCallbackJobs(queue, [queued[0]!, missing, queued[1]!])).toEqual([true, false, true]);
    expect(await haveCallbackJobs(queue, [])).toEqual([]);

    const ran: string[] = [];
    const worker = startCallbackJobWorker(
      redis,
      { [CALLBACK_JOB_NAME]: async (job) => void ran.push(job.data.deliveryId) },
      { concurrency: 2, lockDurationMs: 5_000 },
    );
    await new Promise<void>((resolve) => worker.once('drained', resolve));
    await worker.close();
    expect(ran.sort()).toEqual([...queued].sort());
    expect(await haveCallbackJobs(queue, queued)).toEqual([false, false]);
  });
});

describe('startCallbackJobWorker', () => {
  it('gives each job to the handler of its name and fails a job whose name has none', async () => {
    const known = randomUUID();
    const unknown = randomUUID();
    await enqueueDeliveries(queue, [known]);
    // Written around the typed queue, as an old producer could have.
    const untyped = new Queue(QUEUE_NAMES.callbacks, { connection: redisConnection(redis, 'producer'), prefix: redis.prefix });
    await untyped.add('renamed', { deliveryId: unknown }, { jobId: unknown, removeOnFail: true });
    await untyped.close();

    const ran: string[] = [];
    const failed: Array<{ id: string | undefined; message: string }> = [];
    const worker = startCallbackJobWorker(
      redis,
      { [CALLBACK_JOB_NAME]: async (job) => void ran.push(job.data.deliveryId) },
      { concurrency: 1, lockDurationMs: 5_000 },
    );
    worker.on('failed', (job, error) => failed.push({ id: job?.id, message: error.message }));
    await new Promise<void>((resolve) => worker.once('drained', resolve));
    await worker.close();
    expect(ran).toEqual([known]);
    expect(failed).toEqual([{ id: unknown, message: 'no handler for callback job "renamed"' }]);
    expect(await haveCallbackJobs(queue, [known, unknown])).toEqual([false, false]);
  });
});

describe('queue markers', () => {
  it("holds a marker among the queue's keys, gone with them", async () => {
    expect(await hasQueueMarker(queue, 'test-marker')).toBe(false);
    await setQueueMarker(queue, 'test-marker');
    expect(await hasQueueMarker(queue, 'test-marker')).toBe(true);
    // What a FLUSHALL does to this queue, without wiping the shared Redis of every other test.
    const client = new IORedis(redis.url);
    const keys = await client.keys(`${redis.prefix}:${QUEUE_NAMES.callbacks}:*`);
    expect(keys).toContain(queue.toKey('test-marker'));
    await client.del(...keys);
    client.disconnect();
    expect(await hasQueueMarker(queue, 'test-marker')).toBe(false);
  });
});
