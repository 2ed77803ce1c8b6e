import fp from 'fastify-plugin';
import type { SandboxProviderConfig } from '../config';
import { CheckoutService } from '../services/checkout-service';
import { GatewayNotifier } from '../services/gateway-notifier';
import { OrderPayer } from '../services/order-payer';
import { SandboxOrderRepository } from '../services/order-repository';

declare module 'fastify' {
  interface FastifyInstance {
    sandboxCheckout: CheckoutService;
  }
}

export interface SandboxCheckoutOptions {
  config: SandboxProviderConfig;
  /** How long a post waits for its transfer to be mined before showing "in progress"; 20 s by default. */
  receiptTimeoutMs?: number;
}

/**
 * The orders (in the sandbox's own table), their payment in test USDC, and the webhooks to the
 * gateway; finishes the orders a crash interrupted.
 */
export const sandboxCheckout = fp<SandboxCheckoutOptions>(
  async (app, { config, receiptTimeoutMs }) => {
    const orders = new SandboxOrderRepository(app.pool);
    await orders.ensureTable(config.raw.DATABASE_SCHEMA);
    const notifier = new GatewayNotifier({ baseUrl: config.webhookBaseUrl, secret: config.signingSecret, log: app.log });
    app.addHook('onClose', () => notifier.close());
    const payer = new OrderPayer({ orders, funder: app.funderWallet, receiptTimeoutMs });
    const checkout = new CheckoutService({ orders, payer, notifier, log: app.log });
    await checkout.resumeUnfinished();
    app.decorate('sandboxCheckout', checkout);
  },
  { name: 'sandbox-checkout', dependencies: ['postgres', 'funder-wallet'] },
);
