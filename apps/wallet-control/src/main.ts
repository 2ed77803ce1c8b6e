import { databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db/wallet-control';
import { closeAfterRequests, createApiRedis, runApp } from '@gateway/http';
import { buildWalletControlApp } from './app';
import { loadWalletControlConfig } from './config';

runApp({
  name: 'wallet-control',
  loadConfig: loadWalletControlConfig,
  async build(config) {
    const { raw } = config;
    const pool = createPool({ ...databasePoolOptions(raw, 'wallet-control'), app: 'wallet-control' });
    const redis = createApiRedis(raw.REDIS_URL);
    // Without a listener a Redis outage would end the process; requests fail open meanwhile.
    redis.on('error', () => undefined);
    const app = await buildWalletControlApp({ config, pool, redis });
    // After the listener, and after the requests still running (their clients may be gone) have finished.
    closeAfterRequests(app, async () => {
      await pool.end();
      redis.disconnect();
    });
    // /metrics on its own port (METRICS_PORT), never the public one; /healthz and /readyz on both.
    return { app, listen: { host: raw.HOST, port: raw.PORT }, metrics: { host: raw.METRICS_HOST, port: raw.METRICS_PORT } };
  },
});
