import fp from 'fastify-plugin';
import { ProviderStatusRepository } from '@gateway/db/payment-redirect';
import { startProviderStatusWorker } from '@gateway/queue';
import { statusPollSchedule, type PaymentRedirectConfig } from '../../config';
import { askProvider, type AskProvider } from '../../jobs/ask-provider';
import { StatusPollReconciler } from '../../services/provider-status/provider-status-reconciler';

declare module 'fastify' {
  interface FastifyInstance {
    /** The status look-up job of one payment (jobs/ask-provider.ts), as the worker runs it. */
    askProvider: AskProvider;
    /** Set where this process runs the status look-ups (STATUS_POLL_WORKER=on). */
    statusPollReconciler: StatusPollReconciler | undefined;
  }
}

/**
 * Where STATUS_POLL_WORKER=on: the provider-status queue's worker, which runs the ask-provider job,
 * and the reconciler that re-enqueues the look-ups Redis lost.
 */
export const askProviderWorker = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const statuses = new ProviderStatusRepository(app.pool);
    const job = askProvider({
      providers: app.providers,
      statuses,
      schedule: statusPollSchedule(raw),
      lookupTimeoutMs: raw.STATUS_POLL_TIMEOUT_MS,
      metrics: app.providerMetrics.status,
      log: app.log,
    });
    app.decorate('askProvider', job);
    if (raw.STATUS_POLL_WORKER !== 'on') {
      app.decorate('statusPollReconciler', undefined);
      return;
    }
    const worker = startProviderStatusWorker({ url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX }, job, {
      concurrency: raw.STATUS_POLL_CONCURRENCY,
    });
    const reconciler = new StatusPollReconciler(
      statuses,
      app.providerStatusQueue,
      app.log,
      { intervalMs: raw.STATUS_POLL_RECONCILE_INTERVAL_MS },
      (count) => app.providerMetrics.status.reconcilerEnqueued(count),
    );
    worker.on('error', (error) => app.log.error({ err: error }, 'provider-status worker error'));
    worker.on('failed', (failed, error) => {
      app.log.warn({ jobId: failed?.id, err: error }, 'provider-status job failed; the reconciler recreates it now');
      reconciler.jobFailed();
    });
    reconciler.start();
    // Before the pool closes (main.ts, onClose): look-ups in flight finish and record.
    app.addHook('preClose', async () => {
      await reconciler.stop();
      await worker.close();
    });
    app.decorate('statusPollReconciler', reconciler);
  },
  { name: 'ask-provider-worker', dependencies: ['postgres', 'providers', 'provider-status-queue', 'provider-metrics'] },
);
