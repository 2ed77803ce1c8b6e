import { mkdtempSync, writeFileSync } from 'node:fs';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { migrate, readMigrations } from '../src/migrate';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('migrate');
});
afterAll(() => db.drop());

describe('migrate', () => {
  it('applies every migration once and is idempotent', async () => {
    const { rows } = await db.pool.query('SELECT name FROM schema_migrations ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual(readMigrations().map((m) => m.name));
    expect(await migrate(db.pool, db.schema)).toEqual([]);
  });

  it('runs concurrently from several processes without applying anything twice', async () => {
    const results = await Promise.all([migrate(db.pool, db.schema), migrate(db.pool, db.schema), migrate(db.pool, db.schema)]);
    expect(results.flat()).toEqual([]);
  });

  it('refuses to run when an applied migration was edited', async () => {
    const [first] = readMigrations();
    await db.pool.query('UPDATE schema_migrations SET checksum = $1 WHERE name = $2', ['0'.repeat(64), first?.name]);
    await expect(migrate(db.pool, db.schema)).rejects.toThrow(/was changed after it was applied/);
  });

  it('only reads numbered SQL files', () => {
    const dir = mkdtempSync('/tmp/migrations-');
    writeFileSync(`${dir}/001_a.sql`, 'SELECT 1;');
    writeFileSync(`${dir}/notes.md`, '# not a migration');
    writeFileSync(`${dir}/2_b.sql`, 'SELECT 2;');
    expect(readMigrations(dir).map((m) => m.name)).toEqual(['001_a.sql']);
  });
});
