import fp from 'fastify-plugin';
import { PaymentReceiptRepository, PaymentRepository, WalletLookupRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { SecondChanceService } from '../../services/checkout/second-chance-service';

declare module 'fastify' {
  interface FastifyInstance {
    secondChanceService: SecondChanceService;
  }
}

export const secondChanceService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    app.decorate(
      'secondChanceService',
      new SecondChanceService({
        payments: new PaymentRepository(app.pool),
        receipts: new PaymentReceiptRepository(app.pool),
        providers: app.providers,
        rates: app.rateReader,
        processPayment: app.paymentService,
        secondChances: config.raw.SECOND_CHANCES_MAX,
        ports: app.checkoutPorts,
        wallets: new WalletLookupRepository(app.pool),
        customerPaysFees: config.raw.CUSTOMER_PAYS_FEES === 'on',
      }),
    );
  },
  { name: 'second-chance-service', dependencies: ['postgres', 'providers', 'rate-reader', 'payment-service', 'checkout-ports'] },
);
