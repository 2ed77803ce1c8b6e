import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { createServer, postgresPlugin } from '@gateway/http';
import { isDatabaseReachable } from '@gateway/db/chain-watcher';
import type { ChainWatcherConfig } from './config';
// Kept in the emitted app.d.ts, where the named imports are not: the tests compile against it, and these declare what
// the kit and the plugins decorate the app with.
import '@gateway/http';
import './plugins';
import { watcherMetrics, chainReader, watchedTokens, chainWatcher } from './plugins';

export interface ChainWatcherAppDeps {
  config: ChainWatcherConfig;
  pool: Pool;
  logger?: FastifyServerOptions['logger'];
}

/**
 * The chain watcher: a loop that follows the chain while this instance leads, and a small HTTP
 * server for /healthz, /readyz (which also says whether this instance leads or stands by; a
 * standby is healthy) and /metrics. Call `app.chainWatcher.start()` to begin watching.
 */
export async function buildChainWatcherApp({ config, pool, logger }: ChainWatcherAppDeps): Promise<FastifyInstance> {
  const app = await createServer({
    serviceName: 'chain-watcher',
    description: 'Follows USDC Transfer logs into temporary wallets and records deposits until they are final.',
    logLevel: config.raw.LOG_LEVEL,
    logger,
    readiness: { postgres: () => isDatabaseReachable(pool) },
    // Its only server, on METRICS_PORT: /metrics stays here.
    metricsRoute: true,
  });
  await app.register(postgresPlugin, { pool });
  await app.register(watcherMetrics);
  await app.register(chainReader, { config });
  await app.register(watchedTokens, { config });
  await app.register(chainWatcher, { config });
  return app;
}
