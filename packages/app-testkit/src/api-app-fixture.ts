import type { FastifyInstance } from 'fastify';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import type { DatabaseApp } from '@gateway/db';
import { createTestRedis, type TestRedis } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from './test-database';
import { testKeyEnv } from './test-keys';

export type EnvOverrides = Record<string, string>;

export interface ApiAppFixture<Config> {
  /** A migrated schema of this file's own; set once the fixture's beforeAll has run. */
  readonly db: TestDatabase;
  /** A Redis prefix of this file's own; set once the fixture's beforeAll has run. */
  readonly cache: TestRedis;
  /** The settings every app of the file starts from, with `overrides` on top. */
  env(overrides?: EnvOverrides): Record<string, string>;
  /** The loaded (validated) configuration of `env(overrides)`: throws as the app would on a bad setting. */
  config(overrides?: EnvOverrides): Config;
  /**
   * Builds an app on the file's database (connected as the app's role, as in production) and Redis,
   * or those given; the fixture closes it after the file.
   */
  build(config?: Config, deps?: { pool?: Pool; redis?: TestRedis }): Promise<FastifyInstance>;
}

export interface ApiAppFixtureOptions<Config> {
  /** Whose role the app's pool takes (migration 014): what the app may not do fails in its tests too. */
  app: DatabaseApp;
  /** Settings of the whole test file, on top of the defaults. */
  fileEnv?: EnvOverrides;
  load(env: Record<string, string>): Config;
  build(deps: { config: Config; pool: Pool; redis: IORedis; logger: false }): Promise<FastifyInstance>;
}

/**
 * Registers the beforeAll/afterAll of an API app's test file: a fresh schema and Redis prefix (so
 * files run in parallel and re-run cleanly), and, after the file, every app it built closed before
 * the schema is dropped and the Redis keys deleted.
 */
export function apiAppFixture<Config>(label: string, options: ApiAppFixtureOptions<Config>): ApiAppFixture<Config> {
  let db: TestDatabase | undefined;
  let cache: TestRedis | undefined;
  const apps: FastifyInstance[] = [];

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`apiAppFixture(${label}): ${what} is only there once beforeAll has run`);
    return value;
  };

  const fixture: ApiAppFixture<Config> = {
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
        // Tests fire many requests from one client address; only the rate-limit tests want a limit.
        RATE_LIMIT_MAX: '100000',
        ...options.fileEnv,
        ...overrides,
      };
    },
    config(overrides = {}) {
      return options.load(fixture.env(overrides));
    },
    async build(config = fixture.config(), deps = {}) {
      const app = await options.build({
        config,
        pool: deps.pool ?? fixture.db.appPool(options.app),
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
