import fp from 'fastify-plugin';
import { MerchantCallbackRepository, OrderRepository, PaymentStatusRepository } from '@gateway/db/wallet-control';
import type { WalletControlConfig } from '../config';
import { PaymentStatusService } from '../services/payment-status-service';

declare module 'fastify' {
  interface FastifyInstance {
    paymentStatusService: PaymentStatusService;
  }
}

export const paymentStatusService = fp<{ config: WalletControlConfig }>(
  async (app, { config }) => {
    app.decorate(
      'paymentStatusService',
      new PaymentStatusService(
        new PaymentStatusRepository(app.pool),
        config.tokenAddress,
        new MerchantCallbackRepository(app.pool),
        new OrderRepository(app.pool),
      ),
    );
  },
  { name: 'payment-status-service', dependencies: ['postgres'] },
);
