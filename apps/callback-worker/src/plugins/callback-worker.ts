import type { LookupFunction } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createCallbackHttpClient } from '@gateway/callback-http';
import { CallbackDeliveryRepository } from '@gateway/db/callback-worker';
import { CALLBACK_JOB_NAME, startCallbackJobWorker } from '@gateway/queue';
import type { CallbackWorkerConfig } from '../config';
import { createDeliverCallbackJob } from '../jobs/deliver-callback';
import { createAttemptRecorder } from '../services/attempt-recorder';
import { createCallbackSender } from '../services/callback-sender';
import { HostLimiter } from '../services/host-limiter';

export interface CallbackWorkerOptions {
  config: CallbackWorkerConfig;
  /** Replaces the system DNS lookup of merchant hosts (tests point names at loopback stubs with it). */
  lookup?: LookupFunction;
}

/**
 * The BullMQ worker that sends merchant callbacks (jobs/deliver-callback.ts), started with the
 * reconciler. Closing the app stops taking jobs, lets attempts in flight finish and closes everything.
 */
export const callbackWorker = fp<CallbackWorkerOptions>(
  async (app, { config, lookup }) => {
    const { raw } = config;
    const { callbackQueue: queue, callbackMetrics: metrics, reconciler } = app;
    const deliveries = new CallbackDeliveryRepository(app.pool);
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
      { url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX },
      { [CALLBACK_JOB_NAME]: deliverCallback },
      { concurrency: raw.WORKER_CONCURRENCY, lockDurationMs: config.attemptLeaseMs },
    );
    worker.on('error', (error) => app.log.error({ err: error }, 'callback worker error'));
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

    // Closing first stops the work: no attempt starts any more (jobs still waiting for a slot go back
    // to the queue), those in flight run to their deadline and their records commit, then Redis and
    // the HTTP agent close; only then does Fastify's own close run (its preClose hooks, then the
    // onClose hooks, where main.ts ends the pool). Not a preClose hook: those ran under Fastify's
    // plugin timeout (10 s, shorter than one attempt) until createServer turned it off for the boot.
    // main.ts bounds the whole close with CALLBACK_SHUTDOWN_GRACE_SECONDS, which config keeps above
    // one attempt and its record.
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
  },
  { name: 'callback-worker', dependencies: ['postgres', 'callback-queue', 'callback-metrics', 'reconciler'] },
);
