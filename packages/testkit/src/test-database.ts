import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { createPool, migrate } from '@gateway/db';

export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  pool: Pool;
  schema: string;
  connectionString: string;
  /** Drops the schema and closes the pool. */
  drop(): Promise<void>;
}

/** A freshly migrated schema of its own, so test files run in parallel and re-run cleanly. */
export async function createTestDatabase(label = 't'): Promise<TestDatabase> {
  const schema = `${label.replace(/[^a-z0-9_]/g, '_').slice(0, 30)}_${randomBytes(6).toString('hex')}`;
  const pool = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 5, applicationName: `test-${schema}` });
  await migrate(pool, schema);
  return {
    pool,
    schema,
    connectionString: TEST_DATABASE_URL,
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}
