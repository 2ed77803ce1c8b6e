import { randomUUID } from 'node:crypto';
import type { JobHandler, JobResult, RedisSettings } from '../../src';

/**
 * A test file's queue on the shared Redis, under a prefix of its own: opened before the file's
 * tests (jest's beforeAll), emptied and closed after them.
 */
export function useTestQueue<Q extends { obliterate(options: { force: boolean }): Promise<void>; close(): Promise<void> }>(
  open: (redis: RedisSettings) => Q,
): { redis: RedisSettings; queue(): Q } {
  const redis = { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: `test-${randomUUID()}` };
  let queue: Q | undefined;
  beforeAll(() => {
    queue = open(redis);
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await queue?.close();
  });
  return {
    redis,
    queue() {
      if (queue === undefined) throw new Error('the test queue is there from beforeAll on');
      return queue;
    },
  };
}

/** A handler that notes the record id of each job it runs, then answers `answer` ('done' unless told). */
export function notingHandler<Data>(
  seen: string[],
  recordId: (data: Data) => string,
  answer: () => JobResult = () => 'done',
): JobHandler<Data> {
  return async (job) => {
    seen.push(recordId(job.data));
    return answer();
  };
}
