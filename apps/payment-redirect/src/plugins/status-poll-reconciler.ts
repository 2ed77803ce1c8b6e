import fp from 'fastify-plugin';
import { ProviderStatusPollRepository } from '@gateway/db/payment-redirect';
import { startProviderStatusWorker } from '@gateway/queue';
import type { PaymentRedirectConfig } from '../config';
import { StatusPollReconciler } from '../services/provider-status-reconciler';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set where this process runs the status look-ups (STATUS_POLL_WORKER=on). */
    statusPollReconciler: StatusPollReconciler | undefined;
  }
}

/** Where STATUS_POLL_WORKER=on: the worker that runs the status look-ups, and the reconciler that re-enqueues them. */
export const statusPollReconciler = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    if (raw.STATUS_POLL_WORKER !== 'on') {
      app.decorate('statusPollReconciler', undefined);
      return;
    }
    const providerStatus = app.providerStatus;
    const worker = startProviderStatusWorker(
      { url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX },
      (paymentId) => providerStatus.poll(paymentId),
      { concurrency: raw.STATUS_POLL_CONCURRENCY },
    );
    const reconciler = new StatusPollReconciler(
      new ProviderStatusPollRepository(app.pool),
      app.providerStatusQueue,
      app.log,
      { intervalMs: raw.STATUS_POLL_RECONCILE_INTERVAL_MS },
      (count) => app.providerMetrics.status.reconcilerEnqueued(count),
    );
    worker.on('error', (error) => app.log.error({ err: error }, 'provider-status worker error'));
    worker.on('failed', (job, error) => {
      app.log.warn({ jobId: job?.id, err: error }, 'provider-status job failed; the reconciler recreates it now');
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
  { name: 'status-poll-reconciler', dependencies: ['postgres', 'provider-status-queue', 'provider-status-service', 'provider-metrics'] },
);
