import { Pool, type PoolConfig } from 'pg';

export interface DatabaseOptions {
  connectionString: string;
  /** Schema holding the tables; tests give each file its own. */
  schema?: string;
  max?: number;
  applicationName?: string;
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
    options: `-c search_path=${schema}`,
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
