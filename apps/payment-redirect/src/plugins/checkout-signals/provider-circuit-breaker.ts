import fp from 'fastify-plugin';
import type { PaymentRedirectConfig } from '../../config';
import { ProviderCircuitBreaker } from '../../services/checkout-signals/provider-circuit-breaker';

declare module 'fastify' {
  interface FastifyInstance {
    /** The providers' circuit breakers, shared by every replica in Redis. */
    providerCircuitBreaker: ProviderCircuitBreaker;
  }
}

export const providerCircuitBreaker = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    for (const provider of app.providers.offered) app.providerMetrics.circuit.track(provider.id);
    app.decorate(
      'providerCircuitBreaker',
      new ProviderCircuitBreaker({
        redis: app.redis,
        prefix: config.raw.REDIS_PREFIX,
        settings: config.checkoutSignals.circuit,
        metrics: app.providerMetrics.circuit,
        log: app.log,
      }),
    );
  },
  { name: 'provider-circuit-breaker', dependencies: ['redis', 'provider-metrics', 'providers'] },
);
