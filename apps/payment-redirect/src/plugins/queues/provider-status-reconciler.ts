import fp from 'fastify-plugin';
import { ProviderStatusRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { ProviderStatusReconciler } from '../../services/provider-status/provider-status-reconciler';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Rebuilds lost status jobs from the payments' schedules, where this process runs the look-ups
     * (STATUS_POLL_WORKER=on); the provider-status queue's consumer starts and stops it.
     */
    providerStatusReconciler: ProviderStatusReconciler | undefined;
  }
}

export const providerStatusReconciler = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    app.decorate(
      'providerStatusReconciler',
      raw.STATUS_POLL_WORKER === 'on'
        ? new ProviderStatusReconciler(
            new ProviderStatusRepository(app.pool),
            app.providerStatusQueue,
            app.log,
            { intervalMs: raw.STATUS_POLL_RECONCILE_INTERVAL_MS },
            (count) => app.providerMetrics.status.reconcilerEnqueued(count),
          )
        : undefined,
    );
  },
  { name: 'provider-status-reconciler', dependencies: ['postgres', 'provider-status-queue', 'provider-metrics'] },
);
