import type { Queue } from 'bullmq';

/**
 * A key of the caller's among the queue's keys, so that whatever wipes them all (FLUSHALL, a restart
 * of a Redis that keeps nothing on disk) wipes it too: its absence tells the jobs may be gone.
 * Queue.obliterate leaves it: it removes only the keys BullMQ knows.
 */
export async function setQueueMarker(queue: Queue, name: string): Promise<void> {
  const client = await queue.getBackend().connection.client;
  await client.set(queue.toKey(name), String(Date.now()));
}

export async function hasQueueMarker(queue: Queue, name: string): Promise<boolean> {
  const client = await queue.getBackend().connection.client;
  return (await client.get(queue.toKey(name))) !== null;
}
