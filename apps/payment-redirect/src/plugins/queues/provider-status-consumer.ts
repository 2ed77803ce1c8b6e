import fp from 'fastify-plugin';
import { ProviderStatusRepository } from '@gateway/db/payment-redirect';
import { PROVIDER_STATUS_JOB_NAME, type ProviderStatusJob, providerStatusWorkerDefinition, QueueConsumer } from '@gateway/queue';
import { statusPollSchedule, type PaymentRedirectConfig } from '../../config';
import { askProvider, askProviderJob, type AskProvider } from '../../jobs/ask-provider';

declare module 'fastify' {
  interface FastifyInstance {
    /** The status look-up job of one payment (jobs/ask-provider.ts), as the worker runs it. */
    askProvider: AskProvider;
    /**
     * Where STATUS_POLL_WORKER=on: the provider-status queue's worker and its reconciler, started
     * when the app listens and closed before it closes.
     */
    providerStatusConsumer: QueueConsumer<ProviderStatusJob, typeof PROVIDER_STATUS_JOB_NAME, { concurrency: number }> | undefined;
  }
}

/** The consumer of the provider-status queue: its job (jobs/ask-provider.ts) asks a payment's provider. */
export const providerStatusConsumer = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const ask = askProvider({
      providers: app.providers,
      statuses: new ProviderStatusRepository(app.pool),
      schedule: statusPollSchedule(raw),
      lookupTimeoutMs: raw.STATUS_POLL_TIMEOUT_MS,
      metrics: app.providerMetrics.status,
      log: app.log,
    });
    app.decorate('askProvider', ask);
    const reconciler = app.providerStatusReconciler;
    if (reconciler === undefined) {
      app.decorate('providerStatusConsumer', undefined);
      return;
    }
    const consumer = new QueueConsumer(providerStatusWorkerDefinition, {
      redis: { url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX },
      settings: { concurrency: raw.STATUS_POLL_CONCURRENCY },
      handlers: { [PROVIDER_STATUS_JOB_NAME]: askProviderJob(ask) },
      reconciler,
      onFailed: (job, error) => {
        app.log.warn({ jobId: job?.id, err: error }, 'provider-status job failed; the reconciler recreates it now');
        reconciler.jobFailed();
      },
      onError: (error) => app.log.error({ err: error }, 'provider-status worker error'),
    });
    app.decorate('providerStatusConsumer', consumer);
    app.addHook('onListen', async () => consumer.start());
    // Before the pool closes (main.ts, onClose): look-ups in flight finish and record.
    app.addHook('preClose', () => consumer.close());
  },
  {
    name: 'provider-status-consumer',
    dependencies: ['postgres', 'providers', 'provider-metrics', 'provider-status-queue', 'provider-status-reconciler'],
  },
);
