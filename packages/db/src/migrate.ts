import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { appRoleName, DATABASE_APPS, DEFAULT_ROLE_PREFIX, type DatabaseApp } from './app-roles';
import { rekeyCallbackPaths } from './callback-path-rekey';
import { bindLegacyCallbackPaths } from './legacy-callback-paths';

export const MIGRATIONS_DIR = join(__dirname, '..', 'migrations');
/** What each app's role may do: applied after the numbered migrations, on every run (see the file). */
export const APP_PRIVILEGES_FILE = join(MIGRATIONS_DIR, 'app-privileges.sql');

// Same number in every process, so concurrent boots apply migrations one at a time.
const MIGRATION_LOCK_ID = 7_311_004_201;

/**
 * What a migration needs that SQL cannot do, run after its SQL in its transaction: 017 claims the
 * callback paths of existing wallets in the canonical form only the WHATWG URL parser gives, and
 * 025 recomputes those claims when the canonical form changed.
 */
const CODE_STEPS: Readonly<Record<string, (client: PoolClient) => Promise<void>>> = {
  '017_callback_path_ownership.sql': bindLegacyCallbackPaths,
  '025_callback_path_spellings.sql': rekeyCallbackPaths,
};

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export interface MigrateOptions {
  /** DATABASE_ROLE_PREFIX: how migration 014 names the apps' roles (default `gateway`). */
  rolePrefix?: string;
}

/**
 * Applies pending SQL migrations in order, each in its own transaction, in the pool's schema
 * (created if missing), then the apps' privileges (app-privileges.sql, in a transaction of its
 * own). A migration that was edited after it was applied stops the run: the database and the code
 * would disagree about what the schema is. Run it as the owner of the schema, able to create roles
 * unless the apps' roles exist already.
 */
export async function migrate(pool: Pool, schema = 'public', options: MigrateOptions = {}): Promise<string[]> {
  const rolePrefix = options.rolePrefix ?? DEFAULT_ROLE_PREFIX;
  const expectedRoles = new Map(DATABASE_APPS.map((app) => [app, appRoleName(rolePrefix, app)]));
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    // Waiting for another process's migrations, and a long migration itself, may take longer than
    // the pool's statement timeout: none for this session until it goes back to the pool.
    await client.query('SET statement_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    // Read by migration 014 when it creates the roles.
    await client.query(`SELECT set_config('gateway.role_prefix', $1, false)`, [rolePrefix]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL ' +
        'DEFAULT now())',
    );
    // Before anything is applied: the roles this schema grants to must be the ones the apps take.
    await assertRolePrefix(client, schema, expectedRoles);
    const { rows } = await client.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations');
    const done = new Map(rows.map((row) => [row.name, row.checksum]));
    for (const migration of readMigrations()) {
      const checksum = done.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) throw new Error(`migration ${migration.name} was changed after it was applied`);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await CODE_STEPS[migration.name]?.(client);
        await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [migration.name, migration.checksum]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
      applied.push(migration.name);
    }
    await applyAppPrivileges(client, schema);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    // Back to the pool's own settings (its statement timeout and search_path, set at connect).
    const reset = await client.query('RESET ALL').then(
      () => true,
      () => false,
    );
    client.release(!reset);
  }
  return applied;
}

/** Refuses a schema whose apps' roles (app_roles, migration 014) are not named after DATABASE_ROLE_PREFIX. */
async function assertRolePrefix(client: PoolClient, schema: string, expected: ReadonlyMap<DatabaseApp, string>): Promise<void> {
  const {
    rows: [table],
  } = await client.query<{ exists: boolean }>(`SELECT to_regclass('app_roles') IS NOT NULL AS exists`);
  if (!table?.exists) return;
  const { rows } = await client.query<{ app: DatabaseApp; role_name: string }>('SELECT app, role_name FROM app_roles');
  for (const { app, role_name: recorded } of rows) {
    if (recorded !== expected.get(app)) {
      throw new Error(
        `schema "${schema}" grants to the roles migration 014 named (${recorded}, …), not to ${expected.get(app)}: set ` +
          `DATABASE_ROLE_PREFIX as it was when the schema was first migrated`,
      );
    }
  }
}

/** Grants each app's role (app_roles) what app-privileges.sql says, revoking the rest, in one transaction. */
async function applyAppPrivileges(client: PoolClient, schema: string): Promise<void> {
  const { rows } = await client.query<{ app: DatabaseApp; role_name: string }>('SELECT app, role_name FROM app_roles');
  const variables: Record<string, string> = { schema };
  for (const { app, role_name } of rows) variables[app.replaceAll('-', '_')] = role_name;
  await client.query('BEGIN');
  try {
    await client.query(bindSqlVariables(readFileSync(APP_PRIVILEGES_FILE, 'utf8'), variables));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(`app-privileges.sql failed: ${(error as Error).message}`);
  }
}

/** Replaces psql-style `:"name"` (never the `::"type"` of a cast) with the quoted identifier `variables[name]`. */
export function bindSqlVariables(sql: string, variables: Readonly<Record<string, string>>): string {
  return sql.replace(/(?<!:):"([a-z_]+)"/g, (_match, name: string) => {
    const value = variables[name];
    if (value === undefined) throw new Error(`app-privileges.sql names :"${name}", which is neither the schema nor an app's role`);
    return `"${value.replaceAll('"', '""')}"`;
  });
}
