import { randomBytes } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { TEST_DATABASE_URL } from '@gateway/testkit';
import { appRoleName, DATABASE_APPS } from '../src/app-roles';
import { createPool } from '../src/pool';
import { migrate, readMigrations } from '../src/migrate';

// Roles belong to the whole cluster while schemas (one per test file, one per gateway) do not: the
// migrations of many schemas, and of other databases (where migrate()'s advisory lock does not
// reach), may create the same roles at the same moment. Each prefix here is this file's own; its
// roles are dropped at the end.

const prefix = `t${randomBytes(5).toString('hex')}`;
const schemas: string[] = [];
const pools: Pool[] = [];
let admin: Client;

function schemaPool(label: string): { schema: string; pool: Pool } {
  const schema = `roles_${label}_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  const pool = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 2 });
  pools.push(pool);
  return { schema, pool };
}

async function rolesOf(rolePrefix: string): Promise<string[]> {
  const { rows } = await admin.query<{ rolname: string }>(`SELECT rolname FROM pg_roles WHERE rolname LIKE $1 ORDER BY 1`, [
    `${rolePrefix}\\_%`,
  ]);
  return rows.map((row) => row.rolname);
}

beforeAll(async () => {
  admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
});
afterAll(async () => {
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await Promise.all(pools.map((pool) => pool.end()));
  for (const name of await rolesOf(prefix)) await admin.query(`DROP ROLE "${name}"`);
  for (const name of await rolesOf(`${prefix}x`)) await admin.query(`DROP ROLE "${name}"`);
  await admin.end();
});

const expectedRoles = (rolePrefix: string) => DATABASE_APPS.map((app) => appRoleName(rolePrefix, app)).sort();

describe("the apps' roles", () => {
  it("are created once however many migrations create them at the same moment, outside migrate()'s lock", async () => {
    // Four schemas migrated up to 013, then 014 in four transactions that overlap (as migrations of
    // four databases would): each CREATE ROLE after the first waits for it, then finds the role.
    const role014 = readMigrations().find((m) => m.name.startsWith('014_'))!;
    const targets = Array.from({ length: 4 }, (_, i) => schemaPool(`race${i}`));
    for (const { schema, pool } of targets) {
      await pool.query(`CREATE SCHEMA "${schema}"`);
      for (const migration of readMigrations().filter((m) => m.name < '014')) await pool.query(migration.sql);
    }
    const sessions = await Promise.all(targets.map(({ pool }) => pool.connect()));
    try {
      await Promise.all(
        sessions.map(async (session) => {
          await session.query('BEGIN');
          await session.query(`SELECT set_config('gateway.role_prefix', $1, true)`, [prefix]);
          await session.query(role014.sql);
          await session.query('SELECT pg_sleep(0.2)');
          await session.query('COMMIT');
        }),
      );
    } finally {
      for (const session of sessions) session.release();
    }
    expect(await rolesOf(prefix)).toEqual(expectedRoles(prefix));
    for (const { pool } of targets) {
      const { rows } = await pool.query<{ role_name: string }>('SELECT role_name FROM app_roles ORDER BY 1');
      expect(rows.map((row) => row.role_name)).toEqual(expectedRoles(prefix));
    }
  });

  it('are named after DATABASE_ROLE_PREFIX, NOLOGIN and with nothing of their own; a schema migrated again with another prefix is refused', async () => {
    const { schema, pool } = schemaPool('prefix');
    await migrate(pool, schema, { rolePrefix: prefix });
    const { rows } = await admin.query(
      `SELECT rolname, rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolinherit FROM pg_roles WHERE rolname = ANY($1) ` +
        `ORDER BY 1`,
      [expectedRoles(prefix)],
    );
    expect(rows).toEqual(
      expectedRoles(prefix).map((rolname) => ({
        rolname,
        rolcanlogin: false,
        rolsuper: false,
        rolcreaterole: false,
        rolcreatedb: false,
        rolbypassrls: false,
        rolinherit: true,
      })),
    );
    // The schema's tables are granted to them.
    const granted = await admin.query<{ ok: boolean }>(`SELECT has_table_privilege($1, $2, 'INSERT') AS ok`, [
      appRoleName(prefix, 'wallet-control'),
      `"${schema}".wallets`,
    ]);
    expect(granted.rows[0]?.ok).toBe(true);
    await expect(migrate(pool, schema, { rolePrefix: `${prefix}x` })).rejects.toThrow(
      new RegExp(
        `grants to the roles migration 014 named \\(${prefix}_\\w+, …\\), not to ${prefix}x_\\w+: set DATABASE_ROLE_PREFIX as it was`,
      ),
    );
  });

  it('are refused when one exists with more than an app may have', async () => {
    const other = `${prefix}x`;
    await admin.query(`CREATE ROLE "${appRoleName(other, 'callback-worker')}" NOLOGIN CREATEROLE`);
    const { schema, pool } = schemaPool('mighty');
    await expect(migrate(pool, schema, { rolePrefix: other })).rejects.toThrow(
      `migration 014_app_roles.sql failed: role ${appRoleName(other, 'callback-worker')} exists with more than an app may have`,
    );
  });

  it("stay out of an app's reach: its role cannot grant itself more, lift the wallet trigger or create anything", async () => {
    const { schema, pool } = schemaPool('reach');
    await migrate(pool, schema, { rolePrefix: prefix });
    const role = appRoleName(prefix, 'wallet-control');
    const session = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 1, app: 'wallet-control', rolePrefix: prefix });
    pools.push(session);
    // PostgreSQL answers a GRANT by a role that holds no grant option with a warning, and grants nothing.
    await session.query(`GRANT UPDATE ON wallets TO ${role}`);
    const { rows } = await admin.query<{ ok: boolean }>(`SELECT has_table_privilege($1, $2, 'UPDATE') AS ok`, [
      role,
      `"${schema}".wallets`,
    ]);
    expect(rows[0]?.ok).toBe(false);
    await expect(session.query('ALTER TABLE wallets DISABLE TRIGGER wallets_row_unchanged')).rejects.toMatchObject({ code: '42501' });
    await expect(session.query('CREATE TABLE wallets_copy (id int)')).rejects.toMatchObject({ code: '42501' });
  });
});
