import { callbackJobId, type CallbackQueue } from '@gateway/queue';

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
