import { Pool, type PoolConfig } from 'pg';

export interface DatabaseOptions {
  connectionString: string;
  /** Schema holding the tables; tests give each file its own. */
  schema?: string;
  max?: number;
  applicationName?: string;
  /**
   * Commits return before their WAL reaches the disk (synchronous_commit=off): a crash of
   * PostgreSQL itself can lose the last fraction of a second of commits, never corrupt anything.
   * Only for writers that redo lost work by themselves (the callback-worker's attempt records).
   */
  asynchronousCommit?: boolean;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function createPool(options: DatabaseOptions): Pool {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  const config: PoolConfig = {
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'gateway',
    // search_path is set at connect time, so every query of this pool sees only its schema.
    options: `-c search_path=${schema}${options.asynchronousCommit ? ' -c synchronous_commit=off' : ''}`,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  };
  return new Pool(config);
}

export async function isDatabaseReachable(pool: Pool): Promise<boolean> {
  try {
    await pool.query('SELECT 1');
    return true;
  } catch {
    return false;
  }
}
