import { Queue, type JobsOptions } from 'bullmq';
import { redisConnection, type RedisSettings } from './connection';
import { callbackJobId, type CallbackJob } from './job-payloads';
import { CALLBACK_JOB_NAME, QUEUE_NAMES } from './queue-names';

/**
 * A callback job is one attempt at a time. The schedule of retries (about three days) lives in
 * callback_deliveries.next_attempt_at, so it survives Redis being flushed; between attempts the
 * worker moves the same job (same id, the delivery's) to `delayed`, so a delivery never has two jobs.
 * BullMQ's own retries stay off: a job that fails (worker error) is removed, and the reconciler
 * recreates it from PostgreSQL.
 */
export const callbackJobOptions: JobsOptions = {
  attempts: 1,
  removeOnComplete: true,
  removeOnFail: true,
};

export type CallbackQueue = Queue<CallbackJob, void, typeof CALLBACK_JOB_NAME>;

/** Producer side of the callbacks queue (the settlement worker, the callback worker's reconciler and resend). */
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
