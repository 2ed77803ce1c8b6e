import type { ConnectionOptions } from 'bullmq';

export interface RedisSettings {
  url: string;
  /** Key prefix, so tests and environments sharing one Redis never see each other's jobs. */
  prefix: string;
}

/**
 * Connection options rather than ioredis instances: BullMQ then owns and closes its connections
 * (TOOLCHAIN trap 6). Workers need `maxRetriesPerRequest: null` to block on Redis. A `rediss://`
 * URL connects with TLS (certificate checked against the host name, Node's default trust store).
 */
export function redisConnection(settings: RedisSettings, role: 'producer' | 'worker'): ConnectionOptions {
  const url = new URL(settings.url);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    enableOfflineQueue: role === 'worker',
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * Runs a producer's calls on `queue` and closes it, giving up after `ms`: BullMQ waits for a refused
 * connection for as long as ioredis retries it, which an operator's command must not. On the deadline
 * the queue is closed in the background (its close waits for the same connection) and the error says so.
 */
export async function produceWithin<Q extends { close(): Promise<void>; on(event: 'error', listener: (error: Error) => void): unknown }, T>(
  queue: Q,
  work: (queue: Q) => Promise<T>,
  ms = 5_000,
): Promise<T> {
  // A refused connection is reported by the deadline, not as an unhandled 'error' event.
  queue.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  let answered = false;
  try {
    const result = await Promise.race([work(queue), deadline]);
    answered = true;
    return result;
  } finally {
    clearTimeout(timer);
    if (answered) await queue.close();
    else void queue.close().catch(() => undefined);
  }
}
