import fp from 'fastify-plugin';
import { PaymentRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { ProviderCheckout } from '../../services/checkout/provider-checkout';

declare module 'fastify' {
  interface FastifyInstance {
    /** Asks a provider for a checkout: Process Payment, the second chance and the customer's link alike. */
    providerCheckout: ProviderCheckout;
  }
}

export const providerCheckout = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const payments = new PaymentRepository(app.pool);
    const checkoutMetrics = app.providerMetrics.checkout;
    app.decorate(
      'providerCheckout',
      new ProviderCheckout({
        publicUrl: config.publicUrl,
        ...(raw.CHECKOUT_TIMEOUT_MS !== undefined ? { checkoutTimeoutMs: raw.CHECKOUT_TIMEOUT_MS } : {}),
        failCheckout: (paymentId, error) => payments.failCheckout(paymentId, error),
        countCheckout: (provider, outcome, failure) => checkoutMetrics.checkout(provider, outcome, failure),
        circuit: app.providerCircuitBreaker,
        log: app.log,
      }),
    );
  },
  { name: 'provider-checkout', dependencies: ['postgres', 'provider-metrics', 'provider-circuit-breaker'] },
);
