import { Worker } from 'bullmq';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { createCallbackHttpClient } from '@gateway/callback-http';
import { CallbackDeliveryRepository, isDatabaseReachable, logLostConnections } from '@gateway/db';
import { createServer } from '@gateway/http';
import { QUEUE_NAMES, redisConnection, type CallbackJob, type RedisSettings } from '@gateway/queue';
import { openCallbackQueue, type CallbackQueue } from './callback-queue';
import { createCallbackProcessor } from './callback-processor';
import type { CallbackWorkerConfig } from './config';
import { HostLimiter } from './host-limiter';
import { registerCallbackMetrics } from './metrics';
import { Reconciler } from './reconciler';

declare module 'fastify' {
  interface FastifyInstance {
    callbackQueue: CallbackQueue;
    reconciler: Reconciler;
  }
}

export interface CallbackWorkerDeps {
  config: CallbackWorkerConfig;
  pool: Pool;
  logger?: FastifyServerOptions['logger'];
}

/**
 * The callback-worker: a BullMQ worker sending merchant callbacks, the reconciler that rebuilds
 * lost jobs from PostgreSQL, and a small HTTP server for /healthz, /readyz and /metrics. Closing the
 * returned instance stops taking jobs, lets attempts in flight finish and closes everything.
 */
export async function startCallbackWorker({ config, pool, logger }: CallbackWorkerDeps): Promise<FastifyInstance> {
  const { raw } = config;
  const redis: RedisSettings = { url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX };
  const queue = openCallbackQueue(redis);
  const app = await createServer({
    serviceName: 'callback-worker',
    description: 'Delivers merchant callbacks (health and metrics only).',
    logLevel: raw.LOG_LEVEL,
    logger,
    readiness: {
      postgres: () => isDatabaseReachable(pool),
      redis: () => queue.getJobCounts('waiting').then(() => true),
    },
  });
  logLostConnections(pool, app.log);
  const deliveries = new CallbackDeliveryRepository(pool);
  const metrics = registerCallbackMetrics(app.metrics, { queue, deliveries });
  const http = createCallbackHttpClient({ ...config.http, allowedCidrs: config.allowedCidrs });
  const processor = createCallbackProcessor({
    deliveries,
    http,
    signingKeys: config.signingKeys,
    retrySchedule: config.retrySchedule,
    attemptLeaseMs: config.attemptLeaseMs,
    // As many may queue for a host as run there: a slow merchant holds at most twice its share of slots.
    hostLimiter: new HostLimiter(raw.PER_HOST_CONCURRENCY, raw.PER_HOST_CONCURRENCY),
    metrics,
    log: app.log,
  });
  const worker = new Worker<CallbackJob, void>(QUEUE_NAMES.callbacks, processor.processJob, {
    connection: redisConnection(redis, 'worker'),
    prefix: redis.prefix,
    concurrency: raw.WORKER_CONCURRENCY,
    // A job whose worker died is taken up again once its lock runs out; the delivery's own lease in
    // PostgreSQL has the same length, so the retaken job finds the delivery claimable.
    lockDuration: config.attemptLeaseMs,
    stalledInterval: config.attemptLeaseMs,
  });
  worker.on('error', (error) => app.log.error({ err: error }, 'callback worker error'));
  // The reconciler's and the metrics' connection: while Redis is away it reports every reconnect try.
  queue.on('error', (error) => app.log.warn({ err: error }, 'callback queue connection error; the reconciler retries at its next pass'));
  worker.on('failed', (job, error) => app.log.warn({ jobId: job?.id, err: error }, 'callback job failed; the reconciler will recreate it when due'));
  const reconciler = new Reconciler(deliveries, queue, app.log, { intervalMs: raw.RECONCILE_INTERVAL_MS }, (count) =>
    metrics.reconcilerEnqueued.inc(count),
  );
  reconciler.start();
  app.log.info(
    {
      concurrency: raw.WORKER_CONCURRENCY,
      perHostConcurrency: raw.PER_HOST_CONCURRENCY,
      allowedCidrs: config.allowedCidrs,
      signingKeyIds: config.signingKeys.map((key) => key.keyId),
      attemptLeaseMs: config.attemptLeaseMs,
    },
    'callback worker started',
  );

  app.decorate('callbackQueue', queue);
  app.decorate('reconciler', reconciler);
  // preClose: attempts in flight finish before onClose hooks (main's pool.end) run.
  app.addHook('preClose', async () => {
    await reconciler.stop();
    await worker.close();
    await processor.drainRecords();
    await Promise.all([queue.close(), http.close()]);
  });
  return app;
}
