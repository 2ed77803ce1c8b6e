import { randomBytes } from 'node:crypto';
import { TEST_DATABASE_URL } from '@gateway/testkit';
import { readMigrations } from '../../src/migrate';
import { createPool } from '../../src/pool';

/**
 * A schema as an older gateway left it, for a migration's test on rows a deployment already has:
 * `migrateBefore(first)` applies the migrations before `first` and records them as an older
 * migrate() did; `migrate()` then applies the rest. Dropped after the file.
 */
export function legacySchema(label: string) {
  const schema = `${label}_${randomBytes(6).toString('hex')}`;
  const pool = createPool({ connectionString: TEST_DATABASE_URL, schema, max: 2 });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  async function migrateBefore(first: string): Promise<void> {
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(
      'CREATE TABLE schema_migrations (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    for (const migration of readMigrations().filter((m) => m.name < first)) {
      if (migration.name === '014_app_roles.sql') await pool.query(`SELECT set_config('gateway.role_prefix', 'gateway', false)`);
      await pool.query(migration.sql);
      await pool.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [migration.name, migration.checksum]);
    }
  }

  return { schema, pool, migrateBefore };
}
