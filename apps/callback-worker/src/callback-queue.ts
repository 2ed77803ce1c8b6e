import { Queue } from 'bullmq';
import { callbackJobId, callbackJobOptions, QUEUE_NAMES, redisConnection, type CallbackJob, type RedisSettings } from '@gateway/queue';

export const CALLBACK_JOB_NAME = 'deliver';

export type CallbackQueue = Queue<CallbackJob, void, typeof CALLBACK_JOB_NAME>;

export function openCallbackQueue(redis: RedisSettings): CallbackQueue {
  return new Queue(QUEUE_NAMES.callbacks, { connection: redisConnection(redis, 'producer'), prefix: redis.prefix });
}

/**
 * Adds one job per delivery, with the delivery's job id: a delivery that already has a job (waiting,
 * delayed or running) keeps it and this add does nothing, so enqueueing is safe to repeat.
 */
export async function enqueueDeliveries(queue: CallbackQueue, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await queue.addBulk(
    deliveryIds.map((id) => ({
      name: CALLBACK_JOB_NAME,
      data: { deliveryId: id },
      opts: { ...callbackJobOptions, jobId: callbackJobId(id) },
    })),
  );
}

/**
 * Which of these deliveries have a job in Redis, in any state (waiting, delayed, running). One
 * HEXISTS per job hash, all written back to back on one connection: about 30 µs each, where
 * queue.getJob would read and parse every job.
 */
export async function haveJobs(queue: CallbackQueue, deliveryIds: readonly string[]): Promise<boolean[]> {
  const client = await queue.getBackend().connection.client;
  // Every job hash has a timestamp field; the key is BullMQ's <prefix>:<queue>:<job id>.
  return Promise.all(deliveryIds.map(async (id) => (await client.hexists(queue.toKey(callbackJobId(id)), 'timestamp')) === 1));
}
