import { Queue } from 'bullmq';
import { redisConnection, type RedisSettings } from './connection';
import { haveJobs, oneAttemptJobOptions } from './job-presence';
import { callbackJobId, type CallbackJob } from './job-payloads';
import type { QueueWorkerDefinition } from './queue-consumer';
import { CALLBACK_JOB_NAME, QUEUE_NAMES } from './queue-names';

/**
 * A callback job is one attempt at a time (oneAttemptJobOptions): the schedule of retries (about
 * three days) lives in callback_deliveries.next_attempt_at.
 */
export const callbackJobOptions = oneAttemptJobOptions;

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

/** Which of these deliveries have a job in Redis, in any state (waiting, delayed, running). */
export function haveCallbackJobs(queue: CallbackQueue, deliveryIds: readonly string[]): Promise<boolean[]> {
  return haveJobs(queue, deliveryIds.map(callbackJobId));
}

/**
 * The consumer side: one job name, `deliver`. `lockDurationMs` is the attempt's lease: a job whose
 * worker died is taken up again once its lock runs out, and the delivery's own lease in PostgreSQL
 * has the same length, so the retaken job finds the delivery claimable.
 */
export const callbackWorkerDefinition: QueueWorkerDefinition<
  CallbackJob,
  typeof CALLBACK_JOB_NAME,
  { concurrency: number; lockDurationMs: number }
> = {
  name: QUEUE_NAMES.callbacks,
  workerOptions: ({ concurrency, lockDurationMs }) => ({ concurrency, lockDuration: lockDurationMs, stalledInterval: lockDurationMs }),
};
