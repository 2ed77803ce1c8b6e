import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestSchema<App extends string> {
  /** The owner's pool: tests set up and inspect rows with it, beyond what any app may do. */
  pool: Pool;
  schema: string;
  connectionString: string;
  /**
   * A pool of this schema whose sessions take `app`'s role, as the app's own pool does in
   * production: what the app may not do fails here too. One per app, closed by drop().
   */
  appPool(app: App): Pool;
  /** Drops the schema and closes the pools. */
  drop(): Promise<void>;
}

/** How the schema's pools are opened and its tables made: the database package's own functions. */
export interface TestSchemaSetup<App extends string> {
  createPool(options: { connectionString: string; schema: string; max: number; applicationName: string; app?: App }): Pool;
  migrate(pool: Pool, schema: string): Promise<unknown>;
}

/**
 * A freshly migrated schema of its own, so test files run in parallel and re-run cleanly. The apps'
 * roles are shared by every schema of the cluster: the migrations create them once, and each schema
 * grants them its own tables.
 */
export async function createTestSchema<App extends string>(label: string, setup: TestSchemaSetup<App>): Promise<TestSchema<App>> {
  const schema = `${label.replace(/[^a-z0-9_]/g, '_').slice(0, 30)}_${randomBytes(6).toString('hex')}`;
  const pool = setup.createPool({ connectionString: TEST_DATABASE_URL, schema, max: 5, applicationName: `test-${schema}` });
  await setup.migrate(pool, schema);
  const appPools = new Map<App, Pool>();
  return {
    pool,
    schema,
    connectionString: TEST_DATABASE_URL,
    appPool(app) {
      let appPool = appPools.get(app);
      if (!appPool) {
        appPool = setup.createPool({ connectionString: TEST_DATABASE_URL, schema, max: 5, applicationName: `test-${app}`, app });
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
