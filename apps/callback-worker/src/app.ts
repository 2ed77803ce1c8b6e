import type { LookupFunction } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { createCallbackHttpClient } from '@gateway/callback-http';
import { CallbackDeliveryRepository, isDatabaseReachable, logLostConnections } from '@gateway/db/callback-worker';
import { createServer } from '@gateway/http';
import { CALLBACK_JOB_NAME, openCallbackQueue, startCallbackJobWorker, type CallbackQueue, type RedisSettings } from '@gateway/queue';
import type { CallbackWorkerConfig } from './config';
import { createDeliverCallbackJob } from './jobs/deliver-callback';
import { registerCallbackMetrics } from './metrics';
import { createAttemptRecorder } from './services/attempt-recorder';
import { createCallbackSender } from './services/callback-sender';
import { HostLimiter } from './services/host-limiter';
import { Reconciler } from './services/reconciler';

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
  const recorder = createAttemptRecorder({ deliveries, attemptLeaseMs: config.attemptLeaseMs, metrics, log: app.log });
  const deliverCallback = createDeliverCallbackJob({
    deliveries,
    recorder,
    send: createCallbackSender({ http, signingKeys: config.signingKeys, requireHttps: raw.NODE_ENV === 'production', log: app.log }),
    hostLimiter,
    retrySchedule: config.retrySchedule,
    attemptLeaseMs: config.attemptLeaseMs,
    metrics,
    log: app.log,
  });
  const worker = startCallbackJobWorker(
    redis,
    { [CALLBACK_JOB_NAME]: deliverCallback },
    { concurrency: raw.WORKER_CONCURRENCY, lockDurationMs: config.attemptLeaseMs },
  );
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
    await recorder.drain();
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
