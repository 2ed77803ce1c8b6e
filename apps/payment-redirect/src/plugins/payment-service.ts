import fp from 'fastify-plugin';
import { PaymentRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../config';
import { PaymentService } from '../services/payment-service';

declare module 'fastify' {
  interface FastifyInstance {
    paymentService: PaymentService;
  }
}

export const paymentService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const checkoutMetrics = app.providerMetrics.checkout;
    const service = new PaymentService({
      payments: new PaymentRepository(app.pool),
      providers: app.providers,
      keys: config.keys,
      rates: app.rateReader,
      publicUrl: config.publicUrl,
      ...(raw.CHECKOUT_TIMEOUT_MS !== undefined ? { checkoutTimeoutMs: raw.CHECKOUT_TIMEOUT_MS } : {}),
      limits: { orderAttempts: raw.ORDER_ATTEMPTS_MAX, secondChances: raw.SECOND_CHANCES_MAX },
      log: app.log,
      countCheckout: (provider, outcome, failure) => checkoutMetrics.checkout(provider, outcome, failure),
      statusLookUps: app.providerStatus,
    });
    app.decorate('paymentService', service);
    // The status look-ups' jobs added behind the answers reach Redis before it closes.
    app.settleBeforeClose(() => service.settled());
  },
  { name: 'payment-service', dependencies: ['postgres', 'providers', 'rate-reader', 'provider-metrics', 'provider-status-service'] },
);
