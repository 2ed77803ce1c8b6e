// Reference points for the HTTP bench, measured on the same machine in the same run: what bare
// Fastify reaches, and what Fastify reaches when each request does one PostgreSQL INSERT (the
// floor of any endpoint that records something). Gateway numbers read as a share of the latter.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { createPool } from '@gateway/db';

async function main(): Promise<void> {
  const pool = createPool({
    connectionString: required('DATABASE_URL'),
    schema: required('DATABASE_SCHEMA'),
    max: 10,
    applicationName: 'bench-baseline',
  });
  await pool.query('CREATE TABLE IF NOT EXISTS bench_inserts (id uuid PRIMARY KEY, note text NOT NULL)');

  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ ok: true }));
  // A named statement, as the gateway's repositories use: the comparison is like for like.
  app.get('/insert', async () => {
    await pool.query({
      name: 'bench-insert',
      text: 'INSERT INTO bench_inserts (id, note) VALUES ($1, $2)',
      values: [randomUUID(), 'bench'],
    });
    return { ok: true };
  });
  app.get('/readyz', async () => ({ status: 'ok' }));
  app.addHook('onClose', () => pool.end());

  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
  await app.listen({ host: '127.0.0.1', port: Number(required('PORT')) });
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

main().catch((error: Error) => {
  console.error(`baseline server: ${error.message}`);
  process.exit(1);
});
