import { Queue } from 'bullmq';
import { redisConnection, type RedisSettings } from './connection';
import { callbackJobOptions } from './default-job-options';
import { callbackJobId, type CallbackJob } from './job-payloads';
import { CALLBACK_JOB_NAME, QUEUE_NAMES } from './queue-names';

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
