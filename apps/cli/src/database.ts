import { Type } from '@sinclair/typebox';
import type { Pool } from 'pg';
import { databasePoolOptions, databaseSettings, loadConfig, runtimeSettings } from '@gateway/config';
import { createPool, type DatabaseApp } from '@gateway/db/cli';

export const databaseCommandSettings = Type.Object({ ...runtimeSettings, ...databaseSettings });

/**
 * A small pool on DATABASE_URL (and DATABASE_SCHEMA). With `app`, its sessions take that app's role,
 * as the app's own pool does: the command may do what that app may, nothing more. Without, the
 * login's own rights (the owner's, for what no app may do).
 */
export function openDatabase(env: NodeJS.ProcessEnv, command: string, app?: DatabaseApp): Pool {
  const raw = loadConfig(databaseCommandSettings, env);
  return createPool({ ...databasePoolOptions(raw, `gateway-cli-${command}`), max: 2, ...(app ? { app } : {}) });
}

/** Runs `work` with a pool, then ends the pool whatever happens. */
export async function withDatabase<T>(pool: Pool, work: (pool: Pool) => Promise<T>): Promise<T> {
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}
