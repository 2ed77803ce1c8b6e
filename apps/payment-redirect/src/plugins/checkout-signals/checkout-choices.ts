import fp from 'fastify-plugin';
import { CheckoutMeasureRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { CheckoutChoicesService } from '../../services/checkout-signals/checkout-choices';
import { CheckoutMeasures } from '../../services/checkout-signals/checkout-measures';

declare module 'fastify' {
  interface FastifyInstance {
    /** The hosted checkout's ranked choices for an order, from the live signals (circuits, measures, country). */
    checkoutChoices: CheckoutChoicesService;
  }
}

export const checkoutChoices = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const signals = config.checkoutSignals;
    app.decorate(
      'checkoutChoices',
      new CheckoutChoicesService({
        circuit: app.providerCircuitBreaker,
        measures: new CheckoutMeasures({
          repository: new CheckoutMeasureRepository(app.pool),
          windowDays: signals.rankingWindowDays,
          log: app.log,
        }),
        minAttempts: signals.rankingMinAttempts,
        countryHeader: signals.countryHeader,
        log: app.log,
      }),
    );
  },
  { name: 'checkout-choices', dependencies: ['postgres', 'provider-circuit-breaker'] },
);
