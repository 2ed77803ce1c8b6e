import { createPool } from '@gateway/db';
import { createApiRedis, runServer } from '@gateway/http';
import { ConfigError } from '@gateway/config';
import { loadPaymentRedirectConfig } from './config';
import { buildPaymentRedirectApp } from './app';

async function main(): Promise<void> {
  const config = loadPaymentRedirectConfig();
  const { raw } = config;
  const pool = createPool({
    connectionString: raw.DATABASE_URL,
    schema: raw.DATABASE_SCHEMA,
    max: raw.DATABASE_POOL_SIZE,
    applicationName: 'payment-redirect',
  });
  const redis = createApiRedis(raw.REDIS_URL);
  // Without a listener a Redis outage would end the process; requests fail open meanwhile.
  redis.on('error', () => undefined);
  const app = await buildPaymentRedirectApp({ config, pool, redis });
  app.addHook('onClose', async () => {
    await pool.end();
    redis.disconnect();
  });
  await runServer(app, { host: raw.HOST, port: raw.PORT });
}

main().catch((error: Error) => {
  console.error(error instanceof ConfigError ? `payment-redirect: ${error.message}` : error);
  process.exit(1);
});
