import fp from 'fastify-plugin';
import { ProviderStatusPollRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../config';
import { ProviderStatusService } from '../services/provider-status-service';

declare module 'fastify' {
  interface FastifyInstance {
    providerStatus: ProviderStatusService;
  }
}

/** Status look-ups scheduled on the payments; webhooks and look-ups write through its one forward-only rule. */
export const providerStatusService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    app.decorate(
      'providerStatus',
      new ProviderStatusService({
        providers: app.providers,
        receipts: app.paymentReceipts,
        polls: new ProviderStatusPollRepository(app.pool),
        queue: app.providerStatusQueue,
        schedule: {
          firstDelayMs: raw.STATUS_POLL_FIRST_DELAY_MS,
          maxDelayMs: raw.STATUS_POLL_MAX_DELAY_MS,
          maxAgeMs: raw.STATUS_POLL_MAX_AGE_MINUTES * 60_000,
        },
        lookupTimeoutMs: raw.STATUS_POLL_TIMEOUT_MS,
        metrics: app.providerMetrics.status,
        log: app.log,
      }),
    );
  },
  {
    name: 'provider-status-service',
    dependencies: ['postgres', 'providers', 'payment-receipts', 'provider-status-queue', 'provider-metrics'],
  },
);
