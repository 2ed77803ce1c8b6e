import fp from 'fastify-plugin';
import {
  providerCheckoutMetrics,
  providerStatusMetrics,
  type PaymentRedirectStatusMetrics,
  type ProviderCheckoutMetrics,
} from '../metrics';

declare module 'fastify' {
  interface FastifyInstance {
    /** Checkouts (and the adapters' calls at boot), status look-ups and webhooks, per provider. */
    providerMetrics: { checkout: ProviderCheckoutMetrics; status: PaymentRedirectStatusMetrics };
  }
}

export const providerMetrics = fp(
  async (app) => {
    app.decorate('providerMetrics', { checkout: providerCheckoutMetrics(app.metrics), status: providerStatusMetrics(app.metrics) });
  },
  { name: 'provider-metrics' },
);
