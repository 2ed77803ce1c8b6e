import type { JobsOptions, Queue } from 'bullmq';

/**
 * Which of these job ids have a job in Redis, in any state (waiting, delayed, running): BullMQ's
 * own look-up, all asked back to back on the queue's one connection. A job completed or failed is
 * removed here (removeOnComplete, removeOnFail), so a job found is one still to run.
 */
export async function haveJobs(queue: Queue, jobIds: readonly string[]): Promise<boolean[]> {
  return Promise.all(jobIds.map(async (id) => (await queue.getJob(id)) !== undefined));
}

/**
 * The options of a job whose schedule lives in PostgreSQL (a callback delivery's, a payment's
 * status look-ups), so it survives Redis being flushed: one run at a time, and between runs the
 * worker moves the same job (same id, the record's) to `delayed`, so a record never has two jobs.
 * BullMQ's own retries stay off: a job that fails is removed, and the reconciler recreates it
 * from PostgreSQL.
 */
export const oneAttemptJobOptions: JobsOptions = {
  attempts: 1,
  removeOnComplete: true,
  removeOnFail: true,
};
