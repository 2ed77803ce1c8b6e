import fp from 'fastify-plugin';
import { PaymentReceiptRepository, PaymentRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { RestService } from '../../services/checkout/rest-service';

declare module 'fastify' {
  interface FastifyInstance {
    restService: RestService;
  }
}

export const restService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    app.decorate(
      'restService',
      new RestService({
        payments: new PaymentRepository(app.pool),
        receipts: new PaymentReceiptRepository(app.pool),
        providers: app.providers,
        processPayment: app.paymentService,
        secondChances: config.raw.SECOND_CHANCES_MAX,
        windowHours: config.raw.ORDER_WINDOW_HOURS,
      }),
    );
  },
  { name: 'rest-service', dependencies: ['postgres', 'providers', 'payment-service'] },
);
