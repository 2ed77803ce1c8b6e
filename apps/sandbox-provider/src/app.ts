import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { parseTrustProxy } from '@gateway/config';
import type { Pool } from 'pg';
import { isDatabaseReachable, logLostConnections } from '@gateway/db';
import { createServer } from '@gateway/http';
import { pagesPlugin } from '@gateway/pages';
import type { SandboxProviderConfig } from './config';
import { SandboxMetrics } from './metrics';
import { checkoutRoutes } from './routes/checkout';
import { orderRoutes } from './routes/orders';
import { CheckoutService } from './services/checkout-service';
import { createFunderWallet, type FunderWallet } from './services/funder-wallet';
import { GatewayNotifier } from './services/gateway-notifier';
import { OrderPayer } from './services/order-payer';
import { SandboxOrderRepository } from './services/order-repository';

declare module 'fastify' {
  interface FastifyInstance {
    sandboxCheckout: CheckoutService;
  }
}

export interface SandboxProviderDeps {
  config: SandboxProviderConfig;
  pool: Pool;
  logger?: FastifyServerOptions['logger'];
  /** Defaults to the funded test account of the configuration on CHAIN_RPC_URL. */
  funder?: FunderWallet;
  /** How long a post waits for its transfer to be mined before showing "in progress"; 20 s by default. */
  receiptTimeoutMs?: number;
}

/**
 * Development only: a simulated card on-ramp. It shows the checkout page the gateway links to,
 * takes test cards, and pays the order in test USDC on the local chain. Use startSandboxProvider
 * to boot it: that refuses anything that looks like a real chain or real USDC first.
 */
export async function buildSandboxProviderApp({
  config,
  pool,
  logger,
  funder = createFunderWallet(config),
  receiptTimeoutMs,
}: SandboxProviderDeps): Promise<FastifyInstance> {
  const { raw } = config;
  const orders = new SandboxOrderRepository(pool);
  await orders.ensureTable(raw.DATABASE_SCHEMA);
  const app = await createServer({
    serviceName: 'sandbox-provider',
    description: 'Development only: a simulated card on-ramp that pays test USDC on the local chain.',
    logLevel: raw.LOG_LEVEL,
    logger,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    rateLimit: { max: raw.RATE_LIMIT_MAX, windowMs: raw.RATE_LIMIT_WINDOW_MS },
    readiness: {
      postgres: () => isDatabaseReachable(pool),
      chain: async () => (await funder.rpcChainId()) === raw.CHAIN_ID,
    },
  });
  const stopLoggingLostConnections = logLostConnections(pool, app.log);
  app.addHook('onClose', async () => stopLoggingLostConnections());
  const notifier = new GatewayNotifier({ baseUrl: config.webhookBaseUrl, secret: config.signingSecret, log: app.log });
  app.addHook('onClose', () => notifier.close());
  const checkout = new CheckoutService({ orders, payer: new OrderPayer({ orders, funder, receiptTimeoutMs }), notifier, log: app.log });
  app.decorate('sandboxCheckout', checkout);
  await app.register(pagesPlugin, { viewsDir: join(__dirname, '..', 'views') });
  await app.register(checkoutRoutes, {
    checkout,
    link: { secret: config.signingSecret, rates: config.rates, feeBps: raw.PROVIDER_FEE_BPS },
    metrics: new SandboxMetrics(app.metrics),
  });
  await app.register(orderRoutes, { checkout, secret: config.signingSecret });
  return app;
}
