import { Client, type Pool } from 'pg';
import { TEST_DATABASE_URL } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { createPool } from '../src/pool';
import { migrate } from '../src/migrate';

// The lock migrate() takes (packages/db/src/migrate.ts): held here to make a migration wait.
const MIGRATION_LOCK_ID = 7_311_004_201;

let db: TestDatabase;
const pools: Pool[] = [];
const pool = (options: Partial<Parameters<typeof createPool>[0]> = {}) => {
  const created = createPool({ connectionString: TEST_DATABASE_URL, schema: db.schema, max: 2, ...options });
  pools.push(created);
  return created;
};

beforeAll(async () => {
  db = await createTestDatabase('pool');
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db.drop();
});

describe('createPool', () => {
  it('sets a statement timeout of 15 s by default, and TCP keep-alive', async () => {
    const p = pool();
    const { rows } = await p.query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(rows[0]?.statement_timeout).toBe('15s');
    expect(p.options).toMatchObject({ keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
  });

  it('cancels a statement that runs longer than the timeout with query_canceled (57014)', async () => {
    const p = pool({ statementTimeoutMs: 200, keepAliveInitialDelayMs: 5_000 });
    expect(p.options).toMatchObject({ keepAlive: true, keepAliveInitialDelayMillis: 5_000 });
    const started = Date.now();
    await expect(p.query('SELECT pg_sleep(5)')).rejects.toMatchObject({
      code: '57014',
      message: expect.stringMatching(/statement timeout/),
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    // The connection is fine afterwards.
    expect((await p.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('takes 0 for no statement timeout', async () => {
    const { rows } = await pool({ statementTimeoutMs: 0 }).query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(rows[0]?.statement_timeout).toBe('0');
  });

  it('lets migrate wait for the migration lock past the statement timeout, then restores it', async () => {
    const p = pool({ statementTimeoutMs: 200, max: 1 });
    const holder = new Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
      const migration = migrate(p, db.schema);
      await new Promise((resolve) => setTimeout(resolve, 800));
      await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
      await expect(migration).resolves.toEqual([]);
    } finally {
      await holder.end();
    }
    // The pooled connection migrate used is back to the pool's own timeout.
    const { rows } = await p.query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(rows[0]?.statement_timeout).toBe('200ms');
  });
});
