import type { Pool } from 'pg';

/** A session-level advisory lock held on a connection of its own; release() lets the next holder in. */
export interface SessionLock {
  release(): Promise<void>;
}

/**
 * Takes the advisory lock named by `scope` and `name` without waiting, on a connection of its own
 * held until release: one holder at a time across every process. If the holder dies, PostgreSQL
 * drops the connection and the lock with it. Undefined when another holder has it.
 *
 * Advisory locks are per database, not per schema: the key covers the schema too, so gateways (or
 * test files) sharing a database in different schemas never hold each other's locks. A 64-bit hash
 * collision between two names would only make one wait for the other.
 */
export async function trySessionLock(pool: Pool, scope: string, name: string): Promise<SessionLock | undefined> {
  const key = `hashtextextended(current_schema() || '/' || $1::text || '/' || $2::text, 0)`;
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${key}) AS locked`, [scope, name]);
    if (!rows[0]?.locked) {
      client.release();
      return undefined;
    }
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        await client.query(`SELECT pg_advisory_unlock(${key})`, [scope, name]);
        client.release();
      } catch (error) {
        // Destroying the connection releases the lock too.
        client.release(error as Error);
      }
    },
  };
}
