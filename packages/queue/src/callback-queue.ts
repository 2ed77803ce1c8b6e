import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import { redisConnection, type RedisSettings } from './connection';
import { haveJobs } from './job-presence';
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

/** Which of these deliveries have a job in Redis, in any state (waiting, delayed, running). */
export function haveCallbackJobs(queue: CallbackQueue, deliveryIds: readonly string[]): Promise<boolean[]> {
  return haveJobs(queue, deliveryIds.map(callbackJobId));
}

/** A handler per job name the callbacks queue carries: the consumer cannot leave one out. */
export type CallbackJobHandlers = Record<typeof CALLBACK_JOB_NAME, (job: Job<CallbackJob>, token?: string) => Promise<void>>;

export type CallbackWorker = Worker<CallbackJob, void>;

/**
 * The consumer side: each job goes to the handler of its name. `lockDurationMs` is the attempt's
 * lease: a job whose worker died is taken up again once its lock runs out, and the delivery's own
 * lease in PostgreSQL has the same length, so the retaken job finds the delivery claimable.
 */
export function startCallbackJobWorker(
  redis: RedisSettings,
  handlers: CallbackJobHandlers,
  options: { concurrency: number; lockDurationMs: number },
): CallbackWorker {
  const processJob = (job: Job<CallbackJob>, token?: string): Promise<void> => {
    const handler = handlers[job.name as keyof CallbackJobHandlers] as CallbackJobHandlers[keyof CallbackJobHandlers] | undefined;
    // Failed and removed: the reconciler recreates the delivery's job under the name it has now.
    if (handler === undefined) return Promise.reject(new Error(`no handler for callback job ${JSON.stringify(job.name)}`));
    return handler(job, token);
  };
  return new Worker<CallbackJob, void>(QUEUE_NAMES.callbacks, processJob, {
    connection: redisConnection(redis, 'worker'),
    prefix: redis.prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs,
    stalledInterval: options.lockDurationMs,
  });
}
