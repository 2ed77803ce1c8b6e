import fp from 'fastify-plugin';
import type { CircuitMetrics } from '../services/checkout-signals/provider-circuit-breaker';
import {
  providerCheckoutMetrics,
  providerCircuitMetrics,
  providerStatusMetrics,
  type PaymentRedirectStatusMetrics,
  type ProviderCheckoutMetrics,
} from '../metrics';

declare module 'fastify' {
  interface FastifyInstance {
    /** Checkouts (and the adapters' calls at boot), status look-ups and webhooks, per provider. */
    providerMetrics: { checkout: ProviderCheckoutMetrics; status: PaymentRedirectStatusMetrics; circuit: CircuitMetrics };
  }
}

export const providerMetrics = fp(
  async (app) => {
    app.decorate('providerMetrics', {
      checkout: providerCheckoutMetrics(app.metrics),
      status: providerStatusMetrics(app.metrics),
      circuit: providerCircuitMetrics(app.metrics),
    });
  },
  { name: 'provider-metrics' },
);
