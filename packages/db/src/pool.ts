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
  const pool = new Pool(config);
  // pg emits 'error' on the pool when an idle connection dies (PostgreSQL restarted, a proxy or the
  // network cut it). The pool has already dropped that connection and the next query opens a new
  // one; without a listener Node would throw the event and end the process.
  pool.on('error', () => undefined);
  return pool;
}

export interface ConnectionLossLog {
  warn(details: object, message: string): void;
}

/** Logs the connections the pool loses while idle (createPool already keeps them from ending the process). */
export function logLostConnections(pool: Pool, log: ConnectionLossLog): void {
  pool.on('error', (error) => log.warn({ err: error }, 'an idle PostgreSQL connection was lost; the pool opens a new one when needed'));
}

export async function isDatabaseReachable(pool: Pool): Promise<boolean> {
  try {
    await pool.query('SELECT 1');
    return true;
  } catch {
    return false;
  }
}
