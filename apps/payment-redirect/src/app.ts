import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { parseTrustProxy } from '@gateway/config';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import { Counter } from 'prom-client';
import { createServer } from '@gateway/http';
import { pagesPlugin } from '@gateway/pages';
import { isDatabaseReachable, logLostConnections, PaymentReceiptRepository, PaymentRepository, WalletLookupRepository } from '@gateway/db';
import { createProviderRegistry, type ProviderAdapter } from '@gateway/providers';
import { createRateReader, registerRateMetrics, type RateReader } from '@gateway/rates';
import type { PaymentRedirectConfig } from './config';
import { PaymentService } from './services/payment-service';
import { ReceiptService } from './services/receipt-service';
import { HostedCheckoutService } from './services/hosted-checkout-service';
import { paymentRoutes } from './routes/payment';
import { receiptRoutes } from './routes/receipt';
import { hostedCheckoutRoutes } from './routes/hosted-checkout';
import { webhookRoutes } from './routes/webhooks';

declare module 'fastify' {
  interface FastifyInstance {
    paymentService: PaymentService;
    rateReader: RateReader;
    receiptService: ReceiptService;
    hostedCheckoutService: HostedCheckoutService;
    paymentReceipts: PaymentReceiptRepository;
    providerAdapters: ReadonlyMap<string, ProviderAdapter>;
    webhookCounter: Counter<'provider' | 'outcome'>;
  }
}

export interface PaymentRedirectDeps {
  config: PaymentRedirectConfig;
  pool: Pool;
  /** Rate-limit counters shared by every replica (and cached exchange rates). */
  redis: IORedis;
  logger?: FastifyServerOptions['logger'];
}

const APP_ROOT = join(__dirname, '..');

/** The {payment_url} host: customers arrive here, leave top-level for the provider, and come back to their receipt. */
export async function buildPaymentRedirectApp({ config, pool, redis, logger }: PaymentRedirectDeps): Promise<FastifyInstance> {
  const { raw } = config;
  // Before anything listens: a production gateway never links a simulated checkout.
  const adapters = createProviderRegistry({
    sandbox: { baseUrl: raw.SANDBOX_PROVIDER_URL, signingSecret: config.sandboxSecret },
    allowSandbox: raw.NODE_ENV !== 'production',
  });
  const app = await createServer({
    serviceName: 'payment-redirect',
    description: 'Payment links: validates the order, redirects the customer to the provider, and shows the live receipt (the {payment_url} host).',
    logLevel: raw.LOG_LEVEL,
    logger,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    rateLimit: { max: raw.RATE_LIMIT_MAX, windowMs: raw.RATE_LIMIT_WINDOW_MS, redis, keyPrefix: raw.REDIS_PREFIX },
    readiness: { postgres: () => isDatabaseReachable(pool) },
  });
  logLostConnections(pool, app.log);
  const receipts = new PaymentReceiptRepository(pool);
  // Exchange rates (provider minimums, the hosted checkout): the configured source behind the
  // Redis cache, refreshed in the background; loaded once before the app serves.
  const rateReader = createRateReader({ settings: config.rates, redis, keyPrefix: raw.REDIS_PREFIX, logger: app.log });
  app.addHook('preClose', () => rateReader.stop());
  registerRateMetrics(rateReader, app.metrics);
  await rateReader.start();
  app.decorate('rateReader', rateReader);
  app.decorate('providerAdapters', adapters);
  app.decorate('paymentReceipts', receipts);
  app.decorate(
    'paymentService',
    new PaymentService({ payments: new PaymentRepository(pool), adapters, keys: config.keys, rates: rateReader, publicUrl: raw.PUBLIC_URL }),
  );
  app.decorate('receiptService', new ReceiptService(receipts, { explorerTxUrl: config.explorerTxUrl }));
  app.decorate(
    'hostedCheckoutService',
    // Rates read through app.rateReader at request time, whichever reader the app holds.
    new HostedCheckoutService({ keys: config.keys, wallets: new WalletLookupRepository(pool), rates: { current: () => app.rateReader.current() } }),
  );
  app.decorate(
    'webhookCounter',
    new Counter({
      name: 'provider_webhooks_total',
      help: 'Provider webhooks by provider and outcome (updated, unchanged, unknown_payment, refused)',
      labelNames: ['provider', 'outcome'] as const,
      registers: [app.metrics],
    }),
  );
  await app.register(pagesPlugin, { viewsDir: join(APP_ROOT, 'views'), assetsDir: join(APP_ROOT, 'assets') });
  await app.register(paymentRoutes);
  await app.register(receiptRoutes);
  await app.register(hostedCheckoutRoutes);
  await app.register(webhookRoutes);
  return app;
}
