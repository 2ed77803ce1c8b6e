import IORedis from 'ioredis';

/**
 * The API apps' Redis client (rate-limit counters, cached exchange rates). Commands fail fast
 * while Redis is away instead of queueing: an API request never waits on Redis to come back.
 * Commands issued in the same event-loop turn (concurrent requests' rate-limit counts) go out in
 * one write: a system call per command cost more than the command under load.
 */
export function createApiRedis(url: string): IORedis {
  return new IORedis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, enableAutoPipelining: true });
}
