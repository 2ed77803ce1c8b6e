import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestRedis {
  redis: IORedis;
  url: string;
  /** A key prefix of this test file's own (the apps' REDIS_PREFIX), so files run in parallel and re-run. */
  prefix: string;
  /** Deletes this prefix's keys and closes the connection. */
  close(): Promise<void>;
}

/** A key prefix nobody else uses, so test files run in parallel on the shared Redis and re-run. */
export function testRedisPrefix(label = 't'): string {
  return `${label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 30)}-${randomBytes(6).toString('hex')}`;
}

/** A client of the shared Redis with a prefix nobody else uses. */
export function createTestRedis(label = 't'): TestRedis {
  const prefix = testRedisPrefix(label);
  const redis = new IORedis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  return {
    redis,
    url: TEST_REDIS_URL,
    prefix,
    async close() {
      await deleteKeys(redis, prefix);
      await redis.quit();
    },
  };
}

/**
 * Deletes every key under `prefix` in the Redis at `url`: what a run of the apps with that
 * REDIS_PREFIX left (queues, jobs, counters), which nothing else would ever remove.
 */
export async function deleteRedisPrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new IORedis(url, { maxRetriesPerRequest: 1 });
  try {
    await deleteKeys(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

async function deleteKeys(redis: IORedis, prefix: string): Promise<void> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}:*`, count: 500 })) keys.push(...(batch as string[]));
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}
