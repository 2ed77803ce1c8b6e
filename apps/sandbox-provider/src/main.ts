import type { FastifyInstance } from 'fastify';
import { ConfigError, databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db';
import { runServer } from '@gateway/http';
import { SandboxBootRefusedError, startSandboxProvider } from './boot';
import { loadSandboxProviderConfig } from './config';

async function main(): Promise<void> {
  const config = loadSandboxProviderConfig();
  const { raw } = config;
  const pool = createPool(databasePoolOptions(raw, 'sandbox-provider'));
  let app: FastifyInstance;
  try {
    app = await startSandboxProvider({ config, pool });
  } catch (error) {
    await pool.end();
    throw error;
  }
  app.addHook('onClose', () => pool.end());
  // /metrics on its own port (METRICS_PORT), never the public one; /healthz and /readyz on both.
  await runServer(app, { host: raw.HOST, port: raw.PORT }, { metrics: { host: raw.METRICS_HOST, port: raw.METRICS_PORT } });
}

main().catch((error: Error) => {
  const expected = error instanceof ConfigError || error instanceof SandboxBootRefusedError;
  console.error(expected ? `sandbox-provider: ${error.message}` : error);
  process.exit(1);
});
