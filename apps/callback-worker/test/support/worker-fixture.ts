import { spawn, type ChildProcess } from 'node:child_process';
import type { LookupFunction } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { ConfigError } from '@gateway/config';
import { enqueueDeliveries, openCallbackQueue } from '@gateway/queue';
import { deleteRedisPrefix, testRedisPrefix } from '@gateway/testkit';
import {
  createTestDatabase,
  seedDeliveries,
  seedWallet,
  type DeliverySeed,
  type SeededWallet,
  type TestDatabase,
} from '@gateway/app-testkit';
import { buildCallbackWorkerApp } from '../../src/app';
import { loadCallbackWorkerConfig } from '../../src/config';
import { signingKeyPair, type SigningKeyPair } from './fixtures';
import type { MerchantStub } from './merchant-stub';
import { workerEnv } from './worker-env';

export const REPOSITORY_ROOT = join(__dirname, '..', '..', '..', '..');

export interface WorkerOptions {
  /** Settings over workerEnv's. */
  env?: Record<string, string>;
  keys?: readonly SigningKeyPair[];
  /** Instead of the database's app pool; the worker ends it when it closes, as main.ts does. */
  pool?: Pool;
  lookup?: LookupFunction;
}

export interface WorkerFixture {
  /** This file's database (a schema of its own), there from beforeAll on. */
  readonly db: TestDatabase;
  /** This file's keys on the shared Redis. */
  readonly redisPrefix: string;
  /** The signing key a worker gets unless given others. */
  readonly key: SigningKeyPair;
  /** The worker's settings for this file's database and Redis prefix. */
  env(overrides?: Record<string, string>, keys?: readonly SigningKeyPair[]): Record<string, string>;
  /** An in-process worker, listening (so working), closed after the file's tests. */
  startWorker(options?: WorkerOptions): Promise<FastifyInstance>;
  /** A wallet owning `callbackUrl` with `count` due deliveries, committed and then queued, as settlement does. */
  deliver(
    queueOf: FastifyInstance,
    callbackUrl: string,
    count: number,
    values?: Omit<DeliverySeed, 'walletId'>,
  ): Promise<{ wallet: SeededWallet; ids: string[] }>;
  /** Queues these deliveries on this file's Redis prefix, with no worker running. */
  queueDeliveries(ids: string[]): Promise<void>;
  /** The real worker process, as `pnpm --filter @gateway/callback-worker start` runs it; stopping it is the caller's. */
  spawnWorker(env: Record<string, string>, stderr: 'pipe' | 'inherit'): ChildProcess;
  /** A step of the teardown after the file's tests, run in the order given, each after the workers started before it close. */
  onTeardown(step: () => unknown): void;
}

/**
 * What a callback-worker test file stands on: its own database schema and Redis prefix, merchants
 * listening on loopback, workers; all of them started before its tests (jest's beforeAll) and
 * torn down after them, leaving nothing in the shared PostgreSQL and Redis.
 */
export function useWorkerFixture(databaseName: string, merchants: readonly MerchantStub[] = []): WorkerFixture {
  const redisPrefix = testRedisPrefix('test-cbw');
  const key = signingKeyPair('k1');
  const teardown: Array<() => unknown> = [];
  let db: TestDatabase | undefined;

  beforeAll(async () => {
    [db] = await Promise.all([createTestDatabase(databaseName), ...merchants.map((merchant) => merchant.start())]);
  });

  afterAll(async () => {
    for (const step of teardown) await step();
    await Promise.all(merchants.map((merchant) => merchant.close()));
    await deleteRedisPrefix(redisPrefix);
    await db?.drop();
  });

  const fixture: WorkerFixture = {
    get db(): TestDatabase {
      if (db === undefined) throw new Error('the test database is there from beforeAll on');
      return db;
    },
    redisPrefix,
    key,
    env: (overrides = {}, keys = [key]) => workerEnv(fixture.db, redisPrefix, keys, overrides),
    async startWorker(options = {}) {
      const config = loadCallbackWorkerConfig(fixture.env(options.env, options.keys));
      const pool = options.pool ?? fixture.db.appPool('callback-worker');
      const worker = await buildCallbackWorkerApp({ config, pool, logger: false, lookup: options.lookup });
      let closed = false;
      worker.addHook('onClose', async () => {
        closed = true;
        await options.pool?.end();
      });
      // A test may close its worker itself (what closing does is what it tests).
      teardown.push(() => (closed ? undefined : worker.close()));
      // Its work starts when it listens, as main.ts has it.
      await worker.listen({ host: '127.0.0.1', port: 0 });
      return worker;
    },
    async deliver(queueOf, callbackUrl, count, values = {}) {
      const wallet = await seedWallet(fixture.db.pool, { callbackUrl });
      const ids = await seedDeliveries(fixture.db.pool, Array(count).fill({ ...values, walletId: wallet.id }));
      await enqueueDeliveries(queueOf.callbackQueue, ids);
      return { wallet, ids };
    },
    async queueDeliveries(ids) {
      const queue = openCallbackQueue({ url: 'redis://127.0.0.1:6379', prefix: redisPrefix });
      await enqueueDeliveries(queue, ids);
      await queue.close();
    },
    spawnWorker: (env, stderr) =>
      spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', 'apps/callback-worker/src/main.ts'], {
        cwd: REPOSITORY_ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', stderr],
      }),
    onTeardown: (step) => teardown.push(step),
  };
  return fixture;
}

/** The problems loadCallbackWorkerConfig finds in these settings (none: an empty list). */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadCallbackWorkerConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
