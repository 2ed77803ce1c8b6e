import fp from 'fastify-plugin';
import { PaymentRepository, WalletLookupRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { PaymentService } from '../../services/checkout/payment-service';

declare module 'fastify' {
  interface FastifyInstance {
    paymentService: PaymentService;
  }
}

export const paymentService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const service = new PaymentService({
      payments: new PaymentRepository(app.pool),
      providers: app.providers,
      keys: config.keys,
      rates: app.rateReader,
      quotes: app.quoteService,
      checkouts: app.providerCheckout,
      publicUrl: config.publicUrl,
      orderAttempts: config.raw.ORDER_ATTEMPTS_MAX,
      wallets: new WalletLookupRepository(app.pool),
      orders: {
        customerPaysFees: config.raw.CUSTOMER_PAYS_FEES === 'on',
        windowHours: config.raw.ORDER_WINDOW_HOURS,
        ...(config.raw.ORDER_TOLERANCE_BPS !== undefined ? { toleranceBps: config.raw.ORDER_TOLERANCE_BPS } : {}),
      },
      statusLookUps: app.providerStatus,
    });
    app.decorate('paymentService', service);
    // The status look-ups' jobs added behind the answers reach Redis before it closes.
    app.settleBeforeClose(() => service.settled());
  },
  {
    name: 'payment-service',
    dependencies: ['postgres', 'providers', 'rate-reader', 'quote-service', 'provider-checkout', 'provider-status-service'],
  },
);
