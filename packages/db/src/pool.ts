import { Pool, type PoolConfig } from 'pg';
import { appRoleName, DEFAULT_ROLE_PREFIX, type DatabaseApp } from './app-roles';

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
  /**
   * PostgreSQL cancels any statement running longer (SQLSTATE 57014, which the API apps answer
   * with 503): a stuck query or lock wait frees its connection instead of holding it for good.
   * 0 for none. Default 15 s. A session that must wait longer (migrate's lock) sets its own.
   */
  statementTimeoutMs?: number;
  /**
   * TCP keep-alive probes start after the connection has been idle this long, so a connection a
   * NAT, proxy or vanished host dropped silently is noticed instead of hanging a query. Default 10 s.
   */
  keepAliveInitialDelayMs?: number;
  /**
   * The app this pool serves: every session takes the app's role (`<rolePrefix>_<app>`, migration
   * 014) at connect, so its statements have exactly the privileges app-privileges.sql grants it,
   * whatever else the login user may do. The login user must be a member of the role (or a
   * superuser, as in most tests); a connection is refused otherwise. Absent: the login user's own
   * privileges (migrations, operator commands that change wallets, test setup, the sandbox).
   */
  app?: DatabaseApp;
  /** DATABASE_ROLE_PREFIX: the prefix of the roles migration 014 created. Default `gateway`. */
  rolePrefix?: string;
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;
export const DEFAULT_KEEPALIVE_INITIAL_DELAY_MS = 10_000;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function createPool(options: DatabaseOptions): Pool {
  const schema = options.schema ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  if (!Number.isSafeInteger(statementTimeoutMs) || statementTimeoutMs < 0)
    throw new Error(`invalid statement timeout ${statementTimeoutMs}`);
  const config: PoolConfig = {
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'gateway',
    // Set at connect time, so every session of this pool has them (RESET restores them):
    // search_path (every query sees only its schema), the app's role (no round trip of its own;
    // RESET ALL and RESET ROLE come back to it, not to the login user) and the statement timeout
    // (0 sent as well, so a role or database default cannot impose one).
    options: [
      `-c search_path=${schema}`,
      ...(options.app ? [`-c role=${appRoleName(options.rolePrefix ?? DEFAULT_ROLE_PREFIX, options.app)}`] : []),
      `-c statement_timeout=${statementTimeoutMs}`,
      ...(options.asynchronousCommit ? ['-c synchronous_commit=off'] : []),
    ].join(' '),
    keepAlive: true,
    keepAliveInitialDelayMillis: options.keepAliveInitialDelayMs ?? DEFAULT_KEEPALIVE_INITIAL_DELAY_MS,
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

/**
 * Logs the connections the pool loses while idle (createPool already keeps them from ending the
 * process). Returns what stops it: an app closes it with itself, so apps built one after another on
 * one pool (tests, a restart in-process) leave no listener behind.
 */
export function logLostConnections(pool: Pool, log: ConnectionLossLog): () => void {
  const onError = (error: Error) =>
    log.warn({ err: error }, 'an idle PostgreSQL connection was lost; the pool opens a new one when needed');
  pool.on('error', onError);
  return () => pool.off('error', onError);
}

export async function isDatabaseReachable(pool: Pool): Promise<boolean> {
  try {
    await pool.query('SELECT 1');
    return true;
  } catch {
    return false;
  }
}
