import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { parseTrustProxy } from '@gateway/config';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import { createServer, postgresPlugin, rateReaderPlugin, redisPlugin } from '@gateway/http';
import { pagesPlugin } from '@gateway/pages';
import type { PaymentRedirectConfig } from './config';
import { TokenCheck } from './services/token-check';
// Also imported for its own sake: with it, each plugin's declaration of what it decorates the app with
// reaches every program that imports this file (the tests read what the plugins decorate the app with).
import './plugins';
import {
  providerMetrics,
  providers,
  providerStatusQueue,
  providerStatusService,
  askProviderWorker,
  providerEventConsumer,
  providerCheckout,
  paymentService,
  checkoutLinkService,
  secondChanceService,
  receiptService,
  hostedCheckoutService,
} from './plugins';
import { processPaymentRoutes } from './routes/process-payment';
import { checkoutLinkRoutes } from './routes/checkout-link';
import { receiptRoutes } from './routes/receipt';
import { secondChanceRoutes } from './routes/second-chance';
import { hostedCheckoutRoutes } from './routes/hosted-checkout';
import { webhookRoutes } from './routes/webhooks';

export interface PaymentRedirectDeps {
  config: PaymentRedirectConfig;
  pool: Pool;
  /** Rate-limit counters and provider tokens shared by every replica (and cached exchange rates). */
  redis: IORedis;
  logger?: FastifyServerOptions['logger'];
}

const APP_ROOT = join(__dirname, '..');

/** The {payment_url} host: customers arrive here, leave top-level for the provider, and come back to their receipt. */
export async function buildPaymentRedirectApp({ config, pool, redis, logger }: PaymentRedirectDeps): Promise<FastifyInstance> {
  const { raw } = config;
  const tokenCheck = new TokenCheck(pool, { chainId: raw.CHAIN_ID, address: raw.USDC_TOKEN_ADDRESS });
  await tokenCheck.atBoot();
  const app = await createServer({
    serviceName: 'payment-redirect',
    description:
      'Payment links: validates the order, redirects the customer to the provider, and shows the live receipt (the {payment_url} host).',
    logLevel: raw.LOG_LEVEL,
    logger,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    rateLimit: { max: raw.RATE_LIMIT_MAX, windowMs: raw.RATE_LIMIT_WINDOW_MS, redis, keyPrefix: raw.REDIS_PREFIX },
    readiness: { postgres: () => tokenCheck.ready(app.log) },
  });
  await app.register(postgresPlugin, { pool });
  await app.register(redisPlugin, { redis });
  await app.register(providerMetrics);
  await app.register(providers, { config });
  await app.register(rateReaderPlugin, { settings: config.rates, keyPrefix: raw.REDIS_PREFIX });
  await app.register(providerStatusQueue, { config });
  await app.register(providerStatusService, { config });
  await app.register(askProviderWorker, { config });
  await app.register(providerEventConsumer, { config });
  await app.register(providerCheckout, { config });
  await app.register(paymentService, { config });
  await app.register(checkoutLinkService);
  await app.register(secondChanceService, { config });
  await app.register(receiptService, { config });
  await app.register(hostedCheckoutService, { config });

  await app.register(pagesPlugin, { viewsDir: join(APP_ROOT, 'views'), assetsDir: join(APP_ROOT, 'assets') });
  await app.register(processPaymentRoutes, { publicUrl: config.publicUrl });
  await app.register(checkoutLinkRoutes, { publicUrl: config.publicUrl });
  await app.register(receiptRoutes);
  await app.register(secondChanceRoutes, { publicUrl: config.publicUrl });
  await app.register(hostedCheckoutRoutes);
  await app.register(webhookRoutes);
  return app;
}
