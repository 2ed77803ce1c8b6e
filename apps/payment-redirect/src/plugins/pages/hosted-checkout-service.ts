import fp from 'fastify-plugin';
import { WalletLookupRepository } from '@gateway/db/payment-redirect';
import type { PaymentRedirectConfig } from '../../config';
import { HostedCheckoutService } from '../../services/hosted-checkout-service';

declare module 'fastify' {
  interface FastifyInstance {
    hostedCheckoutService: HostedCheckoutService;
  }
}

export const hostedCheckoutService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    app.decorate(
      'hostedCheckoutService',
      // Rates read through app.rateReader at request time, whichever reader the app holds.
      new HostedCheckoutService({
        keys: config.keys,
        wallets: new WalletLookupRepository(app.pool),
        customerPaysFees: config.raw.CUSTOMER_PAYS_FEES === 'on',
        rates: { current: () => app.rateReader.current() },
        providers: app.providers.offered,
        ports: app.checkoutPorts,
      }),
    );
  },
  { name: 'hosted-checkout-service', dependencies: ['postgres', 'rate-reader', 'providers', 'checkout-ports'] },
);
