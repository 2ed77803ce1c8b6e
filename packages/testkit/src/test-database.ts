import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { createPool, migrate, type DatabaseApp } from '@gateway/db';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** The owner's pool: tests set up and inspect rows with it, beyond what any app may do. */
  pool: Pool;
  schema: string;
  connectionString: string;
  /**
   * A pool of this schema whose sessions take `app`'s role (migration 014), as the app's own pool
   * does in production: what the app may not do fails here too. One per app, closed by drop().
   */
  appPool(app: DatabaseApp): Pool;
  /** Drops the schema and closes the pools. */
  drop(): Promise<void>;
}

/**
 * A freshly migrated schema of its own, so test files run in parallel and re-run cleanly. The apps'
 * roles (gateway_<app>) are shared by every schema of the cluster: migration 014 creates them once,
 * and each schema grants them its own tables.
 */
export async function createTestDatabase(label = 't'): Promise<TestDatabase> {
  const schema = `${label.replace(/[^a-z0-9_]/g, '_').slice(0, 30)}_${randomBytes(6).toString('hex')}`;
  const pool = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 5, applicationName: `test-${schema}` });
  await migrate(pool, schema);
  const appPools = new Map<DatabaseApp, Pool>();
  return {
    pool,
    schema,
    connectionString: TEST_DATABASE_URL,
    appPool(app) {
      let appPool = appPools.get(app);
      if (!appPool) {
        appPool = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 5, applicationName: `test-${app}`, app });
        appPools.set(app, appPool);
      }
      return appPool;
    },
    async drop() {
      await Promise.all([...appPools.values()].map((appPool) => appPool.end()));
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}
