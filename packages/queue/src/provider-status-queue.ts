import { Queue } from 'bullmq';
import { redisConnection, type RedisSettings } from './connection';
import { haveJobs, oneAttemptJobOptions } from './job-presence';
import { providerStatusJobId, type ProviderStatusJob } from './job-payloads';
import type { QueueWorkerDefinition } from './queue-consumer';
import { PROVIDER_STATUS_JOB_NAME, QUEUE_NAMES } from './queue-names';

/**
 * A status job asks a provider about one payment, one look-up at a time (oneAttemptJobOptions):
 * its schedule lives in payments.status_poll_due_at (migration 021).
 */
export const providerStatusJobOptions = oneAttemptJobOptions;

export type ProviderStatusQueue = Queue<ProviderStatusJob, void, typeof PROVIDER_STATUS_JOB_NAME>;

/** Producer side of the provider-status queue (Process Payment, a webhook hint, the reconciler). */
export function openProviderStatusQueue(redis: RedisSettings): ProviderStatusQueue {
  return new Queue(QUEUE_NAMES.providerStatus, { connection: redisConnection(redis, 'producer'), prefix: redis.prefix });
}

/**
 * Adds one job per payment, due in `delayMs`, with the payment's job id: a payment that already
 * has a job keeps it and this add does nothing, so enqueueing is safe to repeat.
 */
export async function enqueueStatusPolls(queue: ProviderStatusQueue, paymentIds: readonly string[], delayMs = 0): Promise<void> {
  if (paymentIds.length === 0) return;
  await queue.addBulk(
    paymentIds.map((paymentId) => ({
      name: PROVIDER_STATUS_JOB_NAME,
      data: { paymentId },
      opts: { ...providerStatusJobOptions, jobId: providerStatusJobId(paymentId), delay: Math.max(0, delayMs) },
    })),
  );
}

/**
 * Makes a payment's look-up happen now: a delayed job is promoted, a missing one added. A job
 * that is waiting or running already asks now (a running one reads the schedule again when done).
 */
export async function pollStatusNow(queue: ProviderStatusQueue, paymentId: string): Promise<void> {
  const jobId = providerStatusJobId(paymentId);
  const state = await queue.getJobState(jobId);
  if (state === 'delayed') {
    // Refused only when the job left `delayed` meanwhile (it started): then it asks now anyway.
    await (await queue.getJob(jobId))?.promote().catch(() => undefined);
    return;
  }
  if (state === 'unknown') await enqueueStatusPolls(queue, [paymentId]);
}

/** Which of these payments have a job in Redis, in any state. */
export function haveStatusJobs(queue: ProviderStatusQueue, paymentIds: readonly string[]): Promise<boolean[]> {
  return haveJobs(queue, paymentIds.map(providerStatusJobId));
}

/** The consumer side: one job name, `ask-provider`. */
export const providerStatusWorkerDefinition: QueueWorkerDefinition<
  ProviderStatusJob,
  typeof PROVIDER_STATUS_JOB_NAME,
  { concurrency: number }
> = {
  name: QUEUE_NAMES.providerStatus,
  workerOptions: ({ concurrency }) => ({ concurrency }),
};
