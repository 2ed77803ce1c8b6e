import fp from 'fastify-plugin';
import { WalletLookupRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import type { CheckoutPorts } from '../../services/checkout-rows';
import { HostedCheckoutService } from '../../services/hosted-checkout-service';

declare module 'fastify' {
  interface FastifyInstance {
    hostedCheckoutService: HostedCheckoutService;
  }
}

export const hostedCheckoutService = fp<{ config: PaymentRedirectConfig; ports?: CheckoutPorts | undefined }>(
  async (app, { config, ports }) => {
    app.decorate(
      'hostedCheckoutService',
      // Rates read through app.rateReader at request time, whichever reader the app holds.
      new HostedCheckoutService({
        keys: config.keys,
        wallets: new WalletLookupRepository(app.pool),
        rates: { current: () => app.rateReader.current() },
        providers: app.providers.offered,
        ...(ports ? { ports } : {}),
      }),
    );
  },
  { name: 'hosted-checkout-service', dependencies: ['postgres', 'rate-reader', 'providers'] },
);
