import type { Pool } from 'pg';
import { waitFor } from './wait-for';

export interface TableLock {
  /** Commits the locking transaction (once; later calls do nothing). */
  release(): Promise<void>;
}

/** Holds every insert into `table` (SHARE mode) until released: requests stay in flight as long as a test needs. */
export async function lockTable(pool: Pool, table: string): Promise<TableLock> {
  const client = await pool.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${table} IN SHARE MODE`);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await client.query('COMMIT');
      client.release();
    },
  };
}

/** Waits until a session runs a statement LIKE `queryPattern` that waits for a lock (a lockTable's). */
export async function waitForLockedStatement(pool: Pool, queryPattern: string, what: string): Promise<void> {
  await waitFor(
    what,
    async () => {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
        [queryPattern],
      );
      return (rows[0]?.n ?? 0) > 0;
    },
    10_000,
    25,
  );
}
