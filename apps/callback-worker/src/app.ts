import type { LookupFunction } from 'node:net';
import { Worker } from 'bullmq';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { createCallbackHttpClient } from '@gateway/callback-http';
import { CallbackDeliveryRepository, isDatabaseReachable, logLostConnections } from '@gateway/db/callback-worker';
import { createServer } from '@gateway/http';
import { openCallbackQueue, QUEUE_NAMES, redisConnection, type CallbackJob, type CallbackQueue, type RedisSettings } from '@gateway/queue';
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
  /** Replaces the system DNS lookup of merchant hosts (tests point names at loopback stubs with it). */
  lookup?: LookupFunction;
}

/**
 * The callback-worker: a BullMQ worker sending merchant callbacks, the reconciler that rebuilds
 * lost jobs from PostgreSQL, and a small HTTP server for /healthz, /readyz and /metrics. Closing the
 * returned instance stops taking jobs, lets attempts in flight finish and closes everything.
 */
export async function startCallbackWorker({ config, pool, logger, lookup }: CallbackWorkerDeps): Promise<FastifyInstance> {
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
    // Its only server, on METRICS_PORT: /metrics stays here.
    metricsRoute: true,
  });
  const stopLoggingLostConnections = logLostConnections(pool, app.log);
  app.addHook('onClose', async () => stopLoggingLostConnections());
  const deliveries = new CallbackDeliveryRepository(pool);
  const metrics = registerCallbackMetrics(app.metrics, { queue, deliveries });
  const http = createCallbackHttpClient({ ...config.http, allowedCidrs: config.allowedCidrs, lookup });
  // Per merchant (registrable domain or IP address, see merchantKeyOf). As many may queue for a
  // merchant as run there: a slow merchant holds at most twice its share of slots.
  const hostLimiter = new HostLimiter(raw.PER_HOST_CONCURRENCY, raw.PER_HOST_CONCURRENCY);
  const processor = createCallbackProcessor({
    deliveries,
    http,
    signingKeys: config.signingKeys,
    retrySchedule: config.retrySchedule,
    attemptLeaseMs: config.attemptLeaseMs,
    hostLimiter,
    metrics,
    log: app.log,
    requireHttps: raw.NODE_ENV === 'production',
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
  const reconciler = new Reconciler(deliveries, queue, app.log, { intervalMs: raw.RECONCILE_INTERVAL_MS }, (count) =>
    metrics.reconcilerEnqueued.inc(count),
  );
  worker.on('failed', (job, error) => {
    app.log.warn({ jobId: job?.id, err: error }, 'callback job failed; the reconciler recreates it at its next pass');
    reconciler.jobFailed();
  });
  reconciler.start();
  app.log.info(
    {
      concurrency: raw.WORKER_CONCURRENCY,
      perHostConcurrency: raw.PER_HOST_CONCURRENCY,
      allowedCidrs: config.allowedCidrs,
      signingKeyIds: config.signingKeys.map((key) => key.keyId),
      attemptLeaseMs: config.attemptLeaseMs,
      attemptTimeoutMs: config.http.attemptTimeoutMs,
      shutdownGraceMs: config.shutdownGraceMs,
    },
    'callback worker started',
  );

  app.decorate('callbackQueue', queue);
  app.decorate('reconciler', reconciler);
  // Closing first stops the work: no attempt starts any more (jobs still waiting for a slot go back
  // to the queue), those in flight run to their deadline and their records commit, then Redis and
  // the HTTP agent close; only then does Fastify's own close run (its preClose hooks, then the
  // onClose hooks, where main.ts ends the pool). Not a preClose hook: Fastify cuts those off after
  // its plugin timeout (10 s), shorter than one attempt. main.ts bounds the whole close with
  // CALLBACK_SHUTDOWN_GRACE_SECONDS, which config keeps above one attempt and its record.
  const stopWorking = async (): Promise<void> => {
    hostLimiter.close();
    await reconciler.stop();
    await worker.close();
    await processor.drainRecords();
    await Promise.all([queue.close(), http.close()]);
  };
  let stopping: Promise<void> | undefined;
  const closeServer = app.close.bind(app);
  app.close = function close(listener?: () => void) {
    stopping ??= stopWorking().catch((error: unknown) => app.log.error({ err: error }, 'callback worker did not stop cleanly'));
    const closed = stopping.then(() => closeServer());
    if (listener === undefined) return closed;
    closed.then(
      () => listener(),
      () => listener(),
    );
    return undefined;
  } as FastifyInstance['close'];
  return app;
}
