import fp from 'fastify-plugin';
import { ProviderStatusRepository } from '@gateway/db/payment-redirect';
import { statusPollSchedule, type PaymentRedirectConfig } from '../../config';
import { ProviderStatusService } from '../../services/provider-status/provider-status-service';

declare module 'fastify' {
  interface FastifyInstance {
    providerStatus: ProviderStatusService;
  }
}

/** Status look-ups scheduled on the payments; webhooks and look-ups write through its one forward-only rule. */
export const providerStatusService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    app.decorate(
      'providerStatus',
      new ProviderStatusService({
        providers: app.providers,
        statuses: new ProviderStatusRepository(app.pool),
        queue: app.providerStatusQueue,
        schedule: statusPollSchedule(config.raw),
        metrics: app.providerMetrics.status,
        log: app.log,
      }),
    );
  },
  { name: 'provider-status-service', dependencies: ['postgres', 'providers', 'provider-status-queue', 'provider-metrics'] },
);
