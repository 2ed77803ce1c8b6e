import fp from 'fastify-plugin';
import { PaymentReceiptRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { ReceiptService } from '../../services/receipt-service';

declare module 'fastify' {
  interface FastifyInstance {
    receiptService: ReceiptService;
  }
}

export const receiptService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const secondChance = app.secondChanceService;
    app.decorate(
      'receiptService',
      new ReceiptService(new PaymentReceiptRepository(app.pool), {
        settledToken: config.raw.USDC_TOKEN_ADDRESS,
        explorerTxUrl: config.explorerTxUrl,
        providers: app.providers,
        secondChancesMax: config.raw.SECOND_CHANCES_MAX,
        secondChanceTries: (payment, headers) => secondChance.nextTries(payment, headers),
        rest: app.restService,
      }),
    );
  },
  { name: 'receipt-service', dependencies: ['postgres', 'providers', 'second-chance-service', 'rest-service'] },
);
