import fp from 'fastify-plugin';
import type { PaymentRedirectConfig } from '../config';
import { ReceiptService } from '../services/receipt-service';

declare module 'fastify' {
  interface FastifyInstance {
    receiptService: ReceiptService;
  }
}

export const receiptService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const payments = app.paymentService;
    app.decorate(
      'receiptService',
      new ReceiptService(app.paymentReceipts, {
        settledToken: config.raw.USDC_TOKEN_ADDRESS,
        explorerTxUrl: config.explorerTxUrl,
        providers: app.providers,
        secondChancesMax: config.raw.SECOND_CHANCES_MAX,
        secondChanceFor: (payment) => payments.secondChanceFor(payment),
      }),
    );
  },
  { name: 'receipt-service', dependencies: ['payment-receipts', 'providers', 'payment-service'] },
);
