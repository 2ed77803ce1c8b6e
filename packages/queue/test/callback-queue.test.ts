import { randomUUID } from 'node:crypto';
import { Queue, type Worker } from 'bullmq';
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
  startQueueWorker,
  callbackWorkerDefinition,
  type CallbackJob,
  type CallbackQueue,
  type JobResult,
} from '../src';
import { notingHandler, useTestQueue } from './support/test-queue';

const testQueue = useTestQueue(openCallbackQueue);
const { redis } = testQueue;
let queue: CallbackQueue;

beforeAll(() => {
  queue = testQueue.queue();
});

/** A worker of the callbacks queue whose one handler records each delivery it runs. */
function recordingWorker(ran: string[], concurrency: number, answer: () => JobResult = () => 'done'): Worker<CallbackJob, void> {
  return startQueueWorker(callbackWorkerDefinition, {
    redis,
    settings: { concurrency, lockDurationMs: 5_000 },
    handlers: { [CALLBACK_JOB_NAME]: notingHandler<CallbackJob>(ran, (data) => data.deliveryId, answer) },
  });
}

describe('haveCallbackJobs', () => {
  it('tells, in order, which deliveries have a job, and forgets a job once it ran', async () => {
    const queued = [randomUUID(), randomUUID()];
    const missing = randomUUID();
    await enqueueDeliveries(queue, queued);
    expect(await haveCallbackJobs(queue, [queued[0]!, missing, queued[1]!])).toEqual([true, false, true]);
    expect(await haveCallbackJobs(queue, [])).toEqual([]);

    const ran: string[] = [];
    const worker = recordingWorker(ran, 2);
    await new Promise<void>((resolve) => worker.once('drained', resolve));
    await worker.close();
    expect(ran.sort()).toEqual([...queued].sort());
    expect(await haveCallbackJobs(queue, queued)).toEqual([false, false]);
  });
});

describe('startQueueWorker', () => {
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
    const worker = recordingWorker(ran, 1);
    worker.on('failed', (job, error) => failed.push({ id: job?.id, message: error.message }));
    await new Promise<void>((resolve) => worker.once('drained', resolve));
    await worker.close();
    expect(ran).toEqual([known]);
    expect(failed).toEqual([{ id: unknown, message: 'no handler for callbacks job "renamed"' }]);
    expect(await haveCallbackJobs(queue, [known, unknown])).toEqual([false, false]);
  });

  it('keeps a job that answers "again at" in `delayed` until then, same id, neither completed nor failed', async () => {
    const id = randomUUID();
    await enqueueDeliveries(queue, [id]);
    const ran: string[] = [];
    const failed: string[] = [];
    const againAt = Date.now() + 60_000;
    const worker = recordingWorker(ran, 1, () => ({ againAt: new Date(againAt) }));
    worker.on('failed', (_job, error) => failed.push(error.message));
    await new Promise<void>((resolve) => worker.once('drained', resolve));
    await worker.close();
    const job = await queue.getJob(id);
    expect({ ran, failed, state: await job?.getState(), attemptsMade: job?.attemptsMade }).toEqual({
      ran: [id],
      failed: [],
      state: 'delayed',
      attemptsMade: 0,
    });
    expect(job!.timestamp + job!.delay).toBeGreaterThanOrEqual(againAt - 1_000);
    await job!.remove();
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
