import fp from 'fastify-plugin';
import { ProviderEventRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { ProviderEventConsumer } from '../../services/provider-status/provider-event-consumer';

declare module 'fastify' {
  interface FastifyInstance {
    /** Set where this process runs the status look-ups (STATUS_POLL_WORKER=on) and a provider keeps an event queue. */
    providerEventConsumer: ProviderEventConsumer | undefined;
  }
}

/** Where STATUS_POLL_WORKER=on: empties the providers' event queues (Simplex) into the database, one replica at a time. */
export const providerEventConsumer = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const adapters = app.providers.adapters.filter((adapter) => adapter.consumeEvents !== undefined);
    if (raw.STATUS_POLL_WORKER !== 'on' || adapters.length === 0) {
      app.decorate('providerEventConsumer', undefined);
      return;
    }
    const consumer = new ProviderEventConsumer({
      adapters,
      locks: new ProviderEventRepository(app.pool),
      askNow: (providers, match) => app.providerStatus.hint(providers, match),
      log: app.log,
      intervalMs: raw.PROVIDER_EVENTS_INTERVAL_MS,
      timeoutMs: raw.STATUS_POLL_TIMEOUT_MS,
    });
    consumer.start();
    // Before the pool closes: a pass in flight finishes, keeping what it read.
    app.addHook('preClose', () => consumer.stop());
    app.decorate('providerEventConsumer', consumer);
  },
  { name: 'provider-event-consumer', dependencies: ['postgres', 'providers', 'provider-status-service'] },
);
