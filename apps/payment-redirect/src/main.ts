import { createPool } from '@gateway/db';
import { runServer } from '@gateway/http';
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
  const app = await buildPaymentRedirectApp({ config, pool });
  app.addHook('onClose', () => pool.end());
  await runServer(app, { host: raw.HOST, port: raw.PORT });
}

main().catch((error: Error) => {
  console.error(error instanceof ConfigError ? `payment-redirect: ${error.message}` : error);
  process.exit(1);
});
