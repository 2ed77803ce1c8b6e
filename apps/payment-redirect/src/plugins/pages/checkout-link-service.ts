import fp from 'fastify-plugin';
import { PaymentRepository } from '@gateway/db/payment-redirect';
import { CheckoutLinkService } from '../../services/checkout/checkout-link-service';

declare module 'fastify' {
  interface FastifyInstance {
    checkoutLinkService: CheckoutLinkService;
  }
}

export const checkoutLinkService = fp(
  async (app) => {
    app.decorate(
      'checkoutLinkService',
      new CheckoutLinkService({
        payments: new PaymentRepository(app.pool),
        providers: app.providers,
        checkouts: app.providerCheckout,
      }),
    );
  },
  { name: 'checkout-link-service', dependencies: ['postgres', 'providers', 'provider-checkout'] },
);
