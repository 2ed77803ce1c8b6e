import { Queue } from 'bullmq';
import { redisConnection, type RedisSettings } from './connection';
import { haveJobs, oneAttemptJobOptions } from './job-presence';
import { recoveryEmailJobId, type RecoveryEmailJob } from './job-payloads';
import type { QueueWorkerDefinition } from './queue-consumer';
import { QUEUE_NAMES, RECOVERY_EMAIL_JOB_NAME } from './queue-names';

/**
 * A recovery e-mail's job is one attempt at a time (oneAttemptJobOptions): its due time and its
 * SMTP retries live in recovery_emails (migration 036), as a callback's live in its delivery.
 */
export const recoveryEmailJobOptions = oneAttemptJobOptions;

export type RecoveryEmailQueue = Queue<RecoveryEmailJob, void, typeof RECOVERY_EMAIL_JOB_NAME>;

/** Producer side of the recovery-emails queue (payment-redirect's scanner and reconciler). */
export function openRecoveryEmailQueue(redis: RedisSettings): RecoveryEmailQueue {
  return new Queue(QUEUE_NAMES.recoveryEmails, { connection: redisConnection(redis, 'producer'), prefix: redis.prefix });
}

/**
 * Adds one job per record, due at its time, with the record's job id: a record that already has a
 * job keeps it and this add does nothing, so enqueueing is safe to repeat.
 */
export async function enqueueRecoveryEmails(
  queue: RecoveryEmailQueue,
  records: readonly { id: string; dueAt?: Date }[],
  now: Date = new Date(),
): Promise<void> {
  if (records.length === 0) return;
  await queue.addBulk(
    records.map(({ id, dueAt }) => ({
      name: RECOVERY_EMAIL_JOB_NAME,
      data: { recoveryEmailId: id },
      opts: {
        ...recoveryEmailJobOptions,
        jobId: recoveryEmailJobId(id),
        delay: dueAt === undefined ? 0 : Math.max(0, dueAt.getTime() - now.getTime()),
      },
    })),
  );
}

/** Which of these records have a job in Redis, in any state. */
export function haveRecoveryEmailJobs(queue: RecoveryEmailQueue, ids: readonly string[]): Promise<boolean[]> {
  return haveJobs(queue, ids.map(recoveryEmailJobId));
}

/**
 * The consumer side: one job name, `send-recovery-email`. One SMTP conversation per job: a few at a
 * time is plenty for one e-mail per failed order.
 */
export const recoveryEmailWorkerDefinition: QueueWorkerDefinition<
  RecoveryEmailJob,
  typeof RECOVERY_EMAIL_JOB_NAME,
  { concurrency: number }
> = {
  name: QUEUE_NAMES.recoveryEmails,
  workerOptions: ({ concurrency }) => ({ concurrency }),
};
