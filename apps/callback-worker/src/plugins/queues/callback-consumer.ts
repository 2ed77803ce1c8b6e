import type { LookupFunction } from 'node:net';
import fp from 'fastify-plugin';
import { createCallbackHttpClient } from '@gateway/callback-http';
import { CallbackDeliveryRepository } from '@gateway/db/callback-worker';
import { CALLBACK_JOB_NAME, callbackWorkerDefinition, QueueConsumer, type CallbackJob } from '@gateway/queue';
import type { CallbackWorkerConfig } from '../../config';
import { createDeliverCallbackJob } from '../../jobs/deliver-callback';
import { createAttemptRecorder } from '../../services/attempt-recorder';
import { createCallbackSender } from '../../services/callback-sender';
import { HostLimiter } from '../../services/host-limiter';

declare module 'fastify' {
  interface FastifyInstance {
    /** The callbacks queue's worker and its reconciler: started when the app listens, closed before it closes. */
    callbackConsumer: QueueConsumer<CallbackJob, typeof CALLBACK_JOB_NAME, { concurrency: number; lockDurationMs: number }>;
  }
}

export interface CallbackConsumerOptions {
  config: CallbackWorkerConfig;
  /** Replaces the system DNS lookup of merchant hosts (tests point names at loopback stubs with it). */
  lookup?: LookupFunction;
}

/** The consumer of the callbacks queue: its job (jobs/deliver-callback.ts) sends merchant callbacks. */
export const callbackConsumer = fp<CallbackConsumerOptions>(
  async (app, { config, lookup }) => {
    const { raw } = config;
    const { callbackMetrics: metrics, callbackReconciler: reconciler } = app;
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
      retrySchedules: config.retrySchedules,
      attemptLeaseMs: config.attemptLeaseMs,
      metrics,
      log: app.log,
    });
    const consumer = new QueueConsumer(callbackWorkerDefinition, {
      redis: { url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX },
      settings: { concurrency: raw.WORKER_CONCURRENCY, lockDurationMs: config.attemptLeaseMs },
      handlers: { [CALLBACK_JOB_NAME]: deliverCallback },
      reconciler,
      onFailed: (job, error) => {
        app.log.warn({ jobId: job?.id, err: error }, 'callback job failed; the reconciler recreates it at its next pass');
        reconciler.jobFailed();
      },
      onError: (error) => app.log.error({ err: error }, 'callback worker error'),
    });
    app.decorate('callbackConsumer', consumer);

    app.addHook('onListen', async () => {
      consumer.start();
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
    });
    // Before the server closes and main.ts ends the pool (onClose): no attempt starts any more (jobs
    // still waiting for a slot go back to the queue), those in flight run to their deadline and their
    // records commit, then the HTTP agent closes. No time limit here (createServer's pluginTimeout 0):
    // main.ts bounds the whole close with CALLBACK_SHUTDOWN_GRACE_SECONDS, which config keeps above
    // one attempt and its record.
    app.addHook('preClose', async () => {
      hostLimiter.close();
      try {
        await consumer.close();
        await recorder.drain();
        await http.close();
      } catch (error) {
        app.log.error({ err: error }, 'callback worker did not stop cleanly');
      }
    });
  },
  { name: 'callback-consumer', dependencies: ['postgres', 'callback-queue', 'callback-metrics', 'callback-reconciler'] },
);
