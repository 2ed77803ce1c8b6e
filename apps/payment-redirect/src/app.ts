import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { parseTrustProxy } from '@gateway/config';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import { createServer, postgresPlugin, rateReaderPlugin, redisPlugin } from '@gateway/http';
import { TokenCheckWhenReachable } from '@gateway/http/boot-checks';
import { TokenRepository } from '@gateway/db/payment-redirect';
import { pagesPlugin } from '@gateway/pages';
import type { PaymentRedirectConfig } from './config';
import type { CheckoutPorts } from './services/checkout-rows';
// Kept in the emitted app.d.ts, where the named imports are not: the tests compile against it, and these declare what
// the kit and the plugins decorate the app with.
import '@gateway/http';
import './plugins';
import {
  providerMetrics,
  providers,
  providerStatusQueue,
  providerStatusService,
  providerStatusReconciler,
  providerStatusConsumer,
  providerEventConsumer,
  providerCircuitBreaker,
  checkoutPorts,
  providerCheckout,
  paymentService,
  quoteService,
  checkoutLinkService,
  secondChanceService,
  restService,
  receiptService,
  hostedCheckoutService,
  recoveryMail,
} from './plugins';
import { processPaymentRoutes } from './routes/process-payment';
import { checkoutLinkRoutes } from './routes/checkout-link';
import { receiptRoutes } from './routes/receipt';
import { secondChanceRoutes } from './routes/second-chance';
import { recoveryLinkRoutes } from './routes/recovery-link';
import { hostedCheckoutRoutes } from './routes/hosted-checkout';
import { webhookRoutes } from './routes/webhooks';

export interface PaymentRedirectDeps {
  config: PaymentRedirectConfig;
  pool: Pool;
  /** Rate-limit counters and provider tokens shared by every replica (and cached exchange rates). */
  redis: IORedis;
  logger?: FastifyServerOptions['logger'];
  /** Stand-ins for the rows' quotes, checkout signals and customer country (issue 32; tests); the app's own services without. */
  checkoutPorts?: CheckoutPorts;
}

const APP_ROOT = join(__dirname, '..');

/** The {payment_url} host: customers arrive here, leave top-level for the provider, and come back to their receipt. */
export async function buildPaymentRedirectApp({
  config,
  pool,
  redis,
  logger,
  checkoutPorts: checkoutPortsGiven,
}: PaymentRedirectDeps): Promise<FastifyInstance> {
  const { raw } = config;
  const token = { chainId: raw.CHAIN_ID, address: raw.USDC_TOKEN_ADDRESS };
  const tokenCheck = new TokenCheckWhenReachable(pool, { tokens: new TokenRepository(pool), token });
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
  await app.register(providerStatusReconciler, { config });
  await app.register(providerStatusConsumer, { config });
  await app.register(providerEventConsumer, { config });
  await app.register(providerCircuitBreaker, { config });
  await app.register(providerCheckout, { config });
  await app.register(quoteService, { config });
  await app.register(checkoutPorts, { config, ports: checkoutPortsGiven });
  await app.register(paymentService, { config });
  await app.register(checkoutLinkService);
  await app.register(secondChanceService, { config });
  await app.register(restService, { config });
  await app.register(receiptService, { config });
  await app.register(hostedCheckoutService, { config });
  await app.register(recoveryMail, { config });

  await app.register(pagesPlugin, { viewsDir: join(APP_ROOT, 'views'), assetsDir: join(APP_ROOT, 'assets') });
  await app.register(processPaymentRoutes, { publicUrl: config.publicUrl });
  await app.register(checkoutLinkRoutes, { publicUrl: config.publicUrl });
  await app.register(receiptRoutes);
  await app.register(secondChanceRoutes, { publicUrl: config.publicUrl });
  await app.register(recoveryLinkRoutes, { publicUrl: config.publicUrl });
  await app.register(hostedCheckoutRoutes);
  await app.register(webhookRoutes);
  return app;
}
