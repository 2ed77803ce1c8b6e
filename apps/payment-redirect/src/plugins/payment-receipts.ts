import fp from 'fastify-plugin';
import { PaymentReceiptRepository } from '@gateway/db/payment-redirect';

declare module 'fastify' {
  interface FastifyInstance {
    paymentReceipts: PaymentReceiptRepository;
  }
}

export const paymentReceipts = fp(
  async (app) => {
    app.decorate('paymentReceipts', new PaymentReceiptRepository(app.pool));
  },
  { name: 'payment-receipts', dependencies: ['postgres'] },
);
