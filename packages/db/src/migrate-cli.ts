import { createPool } from './pool';
import { migrate } from './migrate';

// `pnpm migrate`: applies the SQL migrations (and the apps' privileges) to DATABASE_URL /
// DATABASE_SCHEMA, naming the apps' roles after DATABASE_ROLE_PREFIX.
async function main(): Promise<void> {
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) throw new Error('DATABASE_URL is not set');
  const schema = process.env.DATABASE_SCHEMA ?? 'public';
  const pool = createPool({ connectionString, schema, max: 1, applicationName: 'migrate' });
  try {
    const applied = await migrate(pool, schema, { rolePrefix: process.env.DATABASE_ROLE_PREFIX || undefined });
    console.log(applied.length ? `applied ${applied.join(', ')}` : 'database schema is up to date');
  } finally {
    await pool.end();
  }
}

main().catch((error: Error) => {
  console.error(`migration failed: ${error.message}`);
  process.exit(1);
});
