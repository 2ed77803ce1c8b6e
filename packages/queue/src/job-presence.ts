import type { Queue } from 'bullmq';

/**
 * Which of these job ids have a job in Redis, in any state (waiting, delayed, running): BullMQ's
 * own look-up, all asked back to back on the queue's one connection. A job completed or failed is
 * removed here (removeOnComplete, removeOnFail), so a job found is one still to run.
 */
export async function haveJobs(queue: Queue, jobIds: readonly string[]): Promise<boolean[]> {
  return Promise.all(jobIds.map(async (id) => (await queue.getJob(id)) !== undefined));
}
