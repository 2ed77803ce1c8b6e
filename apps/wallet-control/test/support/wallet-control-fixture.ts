import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { createTestDatabase, createTestRedis, testKeyEnv, type TestDatabase, type TestRedis } from '@gateway/testkit';
import { buildWalletControlApp } from '../../src/app';
import { loadWalletControlConfig, type WalletControlConfig } from '../../src/config';

export type EnvOverrides = Record<string, string>;

export interface WalletControlFixture {
  /** A migrated schema of this file's own; set once the fixture's beforeAll has run. */
  readonly db: TestDatabase;
  /** A Redis prefix of this file's own; set once the fixture's beforeAll has run. */
  readonly cache: TestRedis;
  /** The settings every app of the file starts from, with `overrides` on top. */
  env(overrides?: EnvOverrides): Record<string, string>;
  /** The loaded (validated) configuration of `env(overrides)`: throws as the app would on a bad setting. */
  config(overrides?: EnvOverrides): WalletControlConfig;
  /** Builds an app on the file's database and Redis (or those given); the fixture closes it after the file. */
  build(config?: WalletControlConfig, deps?: { pool?: Pool; redis?: TestRedis }): Promise<FastifyInstance>;
}

/**
 * Registers the beforeAll/afterAll of a wallet-control test file: a fresh schema and Redis prefix (so
 * files run in parallel and re-run cleanly), and, after the file, every app it built closed before
 * the schema is dropped and the Redis keys deleted.
 */
export function walletControlFixture(label: string, fileEnv: EnvOverrides = {}): WalletControlFixture {
  let db: TestDatabase | undefined;
  let cache: TestRedis | undefined;
  const apps: FastifyInstance[] = [];

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`walletControlFixture: ${what} is only there once beforeAll has run`);
    return value;
  };

  const fixture: WalletControlFixture = {
    get db() {
      return ready(db, 'db');
    },
    get cache() {
      return ready(cache, 'cache');
    },
    env(overrides = {}) {
      return {
        ...testKeyEnv(),
        NODE_ENV: 'test',
        DATABASE_URL: fixture.db.connectionString,
        DATABASE_SCHEMA: fixture.db.schema,
        REDIS_PREFIX: fixture.cache.prefix,
        // No pool keeper: it would derive thousands of addresses in the background of every test.
        // Tests fire many requests from one client address; only the rate-limit tests want a limit.
        RATE_LIMIT_MAX: '100000',
        ...fileEnv,
        ...overrides,
      };
    },
    config(overrides = {}) {
      return loadWalletControlConfig(fixture.env(overrides));
    },
    async build(config = fixture.config(), deps = {}) {
      const app = await buildWalletControlApp({
        config,
        pool: deps.pool ?? fixture.db.pool,
        redis: (deps.redis ?? fixture.cache).redis,
        logger: false,
      });
      apps.push(app);
      return app;
    },
  };

  beforeAll(async () => {
    db = await createTestDatabase(label);
    cache = createTestRedis(label);
  });

  afterAll(async () => {
    // Closing twice is harmless, so tests may still close an app early themselves.
    await Promise.all(apps.map((app) => app.close()));
    await db?.drop();
    await cache?.close();
  });

  return fixture;
}
