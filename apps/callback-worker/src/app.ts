import type { LookupFunction } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { isDatabaseReachable } from '@gateway/db/callback-worker';
import { createServer, postgresPlugin } from '@gateway/http';
import type { CallbackWorkerConfig } from './config';
// Kept in the emitted app.d.ts, where the named imports are not: the tests compile against it, and these declare what
// the kit and the plugins decorate the app with.
import '@gateway/http';
import './plugins';
import { callbackQueue, callbackMetrics, callbackReconciler, callbackConsumer } from './plugins';

export interface CallbackWorkerDeps {
  config: CallbackWorkerConfig;
  pool: Pool;
  logger?: FastifyServerOptions['logger'];
  /** Replaces the system DNS lookup of merchant hosts (tests point names at loopback stubs with it). */
  lookup?: LookupFunction;
}

/**
 * The callback-worker: a BullMQ worker sending merchant callbacks, the reconciler that rebuilds
 * lost jobs from PostgreSQL, and a small HTTP server for /healthz, /readyz and /metrics. Both start
 * when the app listens (or `app.callbackConsumer.start()`); closing it stops taking jobs, lets
 * attempts in flight finish and closes everything.
 */
export async function buildCallbackWorkerApp({ config, pool, logger, lookup }: CallbackWorkerDeps): Promise<FastifyInstance> {
  const app = await createServer({
    serviceName: 'callback-worker',
    description: 'Delivers merchant callbacks (health and metrics only).',
    logLevel: config.raw.LOG_LEVEL,
    logger,
    readiness: {
      postgres: () => isDatabaseReachable(pool),
      redis: async () => app.callbackQueue.getJobCounts('waiting').then(() => true),
    },
    // Its only server, on METRICS_PORT: /metrics stays here.
    metricsRoute: true,
  });
  await app.register(postgresPlugin, { pool });
  await app.register(callbackQueue, { config });
  await app.register(callbackMetrics);
  await app.register(callbackReconciler, { config });
  await app.register(callbackConsumer, { config, lookup });
  return app;
}
