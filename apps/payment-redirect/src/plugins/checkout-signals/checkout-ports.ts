import fp from 'fastify-plugin';
import { CheckoutMeasureRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import type { CheckoutPorts } from '../../services/checkout-rows';
import { CheckoutMeasures } from '../../services/checkout-signals/checkout-measures';
import { liveCheckoutPorts } from '../../services/checkout-signals/live-checkout-ports';

declare module 'fastify' {
  interface FastifyInstance {
    /** What the hosted checkout's and the second chance's rows are built from: quotes, measured checkouts, circuits, the customer's location. */
    checkoutPorts: CheckoutPorts;
  }
}

/** The rows' live signals (liveCheckoutPorts); `ports`, when given (tests), stands in for them. */
export const checkoutPorts = fp<{ config: PaymentRedirectConfig; ports?: CheckoutPorts | undefined }>(
  async (app, { config, ports }) => {
    const signals = config.checkoutSignals;
    app.decorate(
      'checkoutPorts',
      ports ??
        liveCheckoutPorts({
          quotes: app.quoteService,
          measures: new CheckoutMeasures({
            repository: new CheckoutMeasureRepository(app.pool),
            windowDays: signals.rankingWindowDays,
            log: app.log,
          }),
          circuit: app.providerCircuitBreaker,
          locationHeaders: { country: signals.countryHeader, subdivision: signals.subdivisionHeader },
          rankingMinAttempts: signals.rankingMinAttempts,
          log: app.log,
        }),
    );
  },
  { name: 'checkout-ports', dependencies: ['postgres', 'provider-circuit-breaker', 'quote-service'] },
);
