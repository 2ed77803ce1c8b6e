import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { parseTrustProxy } from '@gateway/config';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import { createServer } from '@gateway/http';
import { pagesPlugin } from '@gateway/pages';
import type { PaymentRedirectConfig } from './config';
import { TokenCheck } from './services/token-check';
// Each plugin declares what it decorates the app with; imported for their own sake too, those declarations
// reach every program that imports this file (the tests read app.providers, app.rateReader, …).
import './plugins/postgres';
import './plugins/redis';
import './plugins/provider-metrics';
import './plugins/providers';
import './plugins/payment-receipts';
import './plugins/rate-reader';
import './plugins/provider-status-queue';
import './plugins/provider-status-service';
import './plugins/status-poll-reconciler';
import './plugins/payment-service';
import './plugins/receipt-service';
import './plugins/hosted-checkout-service';
import { postgres } from './plugins/postgres';
import { redis as redisPlugin } from './plugins/redis';
import { providerMetrics } from './plugins/provider-metrics';
import { providers } from './plugins/providers';
import { paymentReceipts } from './plugins/payment-receipts';
import { rateReader } from './plugins/rate-reader';
import { providerStatusQueue } from './plugins/provider-status-queue';
import { providerStatusService } from './plugins/provider-status-service';
import { statusPollReconciler } from './plugins/status-poll-reconciler';
import { paymentService } from './plugins/payment-service';
import { receiptService } from './plugins/receipt-service';
import { hostedCheckoutService } from './plugins/hosted-checkout-service';
import { paymentRoutes } from './routes/payment';
import { receiptRoutes } from './routes/receipt';
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
  await app.register(postgres, { pool });
  await app.register(redisPlugin, { redis });
  await app.register(providerMetrics);
  await app.register(providers, { config });
  await app.register(paymentReceipts);
  await app.register(rateReader, { config });
  await app.register(providerStatusQueue, { config });
  await app.register(providerStatusService, { config });
  await app.register(statusPollReconciler, { config });
  await app.register(paymentService, { config });
  await app.register(receiptService, { config });
  await app.register(hostedCheckoutService, { config });

  await app.register(pagesPlugin, { viewsDir: join(APP_ROOT, 'views'), assetsDir: join(APP_ROOT, 'assets') });
  await app.register(paymentRoutes);
  await app.register(receiptRoutes);
  await app.register(hostedCheckoutRoutes);
  await app.register(webhookRoutes);
  return app;
}
