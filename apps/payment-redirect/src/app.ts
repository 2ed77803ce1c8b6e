import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { ConfigError, parseTrustProxy } from '@gateway/config';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import { Registry } from 'prom-client';
import { openProviderStatusQueue, startProviderStatusWorker, type ProviderStatusQueue } from '@gateway/queue';
import { createServer } from '@gateway/http';
import { pagesPlugin } from '@gateway/pages';
import {
  isDatabaseReachable,
  logLostConnections,
  PaymentReceiptRepository,
  PaymentRepository,
  ProviderStatusPollRepository,
  TokenRepository,
  WalletLookupRepository,
} from '@gateway/db/payment-redirect';
import { createProviderHttpClient, createProviderRegistry, type ProviderRegistry } from '@gateway/providers';
import { createRateReader, registerRateMetrics, type RateReader } from '@gateway/rates';
import type { PaymentRedirectConfig } from './config';
import { PaymentService } from './services/payment-service';
import { redisSharedStore } from './services/redis-shared-store';
import { ReceiptService } from './services/receipt-service';
import { HostedCheckoutService } from './services/hosted-checkout-service';
import { ProviderStatusService } from './services/provider-status-service';
import { StatusPollReconciler } from './services/provider-status-reconciler';
import { providerCheckoutMetrics, providerStatusMetrics } from './metrics';
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
    providers: ProviderRegistry;
    providerStatus: ProviderStatusService;
    providerStatusQueue: ProviderStatusQueue;
    /** Set where this process runs the status look-ups (STATUS_POLL_WORKER=on). */
    statusPollReconciler: StatusPollReconciler | undefined;
  }
}

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
  // The providers buy the token the database counts in (migration 016): another one refuses to
  // boot. payment-redirect also starts while PostgreSQL is away (not ready): it then checks the
  // token the first time the database answers, and is not ready while the token is another.
  const tokens = new TokenRepository(pool);
  const token = { chainId: raw.CHAIN_ID, address: raw.USDC_TOKEN_ADDRESS };
  let tokenChecked = false;
  if (await isDatabaseReachable(pool)) {
    const otherToken = await tokens.register(token);
    if (otherToken) throw new ConfigError([`USDC_TOKEN_ADDRESS: ${otherToken}`]);
    tokenChecked = true;
  }
  const tokenCounted = async (): Promise<boolean> => {
    const otherToken = await tokens.register(token);
    if (otherToken) app.log.error(`USDC_TOKEN_ADDRESS: ${otherToken}; not ready`);
    return otherToken === undefined;
  };
  // Before anything listens: every provider's credentials checked, its adapter built; the
  // sandbox only where SANDBOX_CHECKOUT=on (never in production).
  const providerHttp = createProviderHttpClient();
  // The app's metrics registry, made first: adapters may call their provider at boot.
  const metricsRegistry = new Registry();
  const checkoutMetrics = providerCheckoutMetrics(metricsRegistry);
  const providers = await createProviderRegistry({
    env: raw,
    ...(config.sandbox ? { sandbox: config.sandbox } : {}),
    production: config.production,
    publicUrl: config.publicUrl,
    token: { chainId: raw.CHAIN_ID, address: raw.USDC_TOKEN_ADDRESS },
    http: providerHttp,
    // Tokens that outlive a request (Transak's access token) are shared by every replica.
    sharedStore: redisSharedStore(redis, raw.REDIS_PREFIX),
    observer: checkoutMetrics,
  }).catch(async (error: unknown) => {
    await providerHttp.close();
    throw error;
  });
  const app = await createServer({
    serviceName: 'payment-redirect',
    description:
      'Payment links: validates the order, redirects the customer to the provider, and shows the live receipt (the {payment_url} host).',
    logLevel: raw.LOG_LEVEL,
    logger,
    metricsRegistry,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    rateLimit: { max: raw.RATE_LIMIT_MAX, windowMs: raw.RATE_LIMIT_WINDOW_MS, redis, keyPrefix: raw.REDIS_PREFIX },
    readiness: {
      postgres: async () => {
        if (!(await isDatabaseReachable(pool))) return false;
        if (!tokenChecked) tokenChecked = await tokenCounted();
        return tokenChecked;
      },
    },
  });
  app.addHook('onClose', () => providerHttp.close());
  const stopLoggingLostConnections = logLostConnections(pool, app.log);
  app.addHook('onClose', async () => stopLoggingLostConnections());
  for (const adapter of providers.adapters) {
    if (adapter.mode !== 'live')
      app.log.warn(
        { provider: adapter.descriptor.id, mode: adapter.mode },
        'provider in a non-live mode: its checkouts take no real money',
      );
  }
  app.log.info({ offered: providers.offered.map((provider) => provider.id) }, 'providers offered');
  const receipts = new PaymentReceiptRepository(pool);
  // Exchange rates (provider minimums, the hosted checkout): the configured source behind the
  // Redis cache, refreshed in the background; loaded once before the app serves.
  const rateReader = createRateReader({ settings: config.rates, redis, keyPrefix: raw.REDIS_PREFIX, logger: app.log });
  app.addHook('preClose', () => rateReader.stop());
  registerRateMetrics(rateReader, app.metrics);
  await rateReader.start();
  app.decorate('rateReader', rateReader);
  app.decorate('providers', providers);
  app.decorate('paymentReceipts', receipts);
  // Status look-ups (issue 23): scheduled on the payments, run by a BullMQ job per payment.
  const redisSettings = { url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX };
  const statusQueue = openProviderStatusQueue(redisSettings);
  statusQueue.on('error', (error) => app.log.warn({ err: error }, 'provider-status queue connection error'));
  const polls = new ProviderStatusPollRepository(pool);
  const statusMetrics = providerStatusMetrics(app.metrics);
  const providerStatus = new ProviderStatusService({
    providers,
    receipts,
    polls,
    queue: statusQueue,
    schedule: {
      firstDelayMs: raw.STATUS_POLL_FIRST_DELAY_MS,
      maxDelayMs: raw.STATUS_POLL_MAX_DELAY_MS,
      maxAgeMs: raw.STATUS_POLL_MAX_AGE_MINUTES * 60_000,
    },
    lookupTimeoutMs: raw.STATUS_POLL_TIMEOUT_MS,
    metrics: statusMetrics,
    log: app.log,
  });
  app.decorate('providerStatus', providerStatus);
  app.decorate('providerStatusQueue', statusQueue);
  let reconciler: StatusPollReconciler | undefined;
  if (raw.STATUS_POLL_WORKER === 'on') {
    const worker = startProviderStatusWorker(redisSettings, (paymentId) => providerStatus.poll(paymentId), {
      concurrency: raw.STATUS_POLL_CONCURRENCY,
    });
    reconciler = new StatusPollReconciler(polls, statusQueue, app.log, { intervalMs: raw.STATUS_POLL_RECONCILE_INTERVAL_MS }, (count) =>
      statusMetrics.reconcilerEnqueued(count),
    );
    const started = reconciler;
    worker.on('error', (error) => app.log.error({ err: error }, 'provider-status worker error'));
    worker.on('failed', (job, error) => {
      app.log.warn({ jobId: job?.id, err: error }, 'provider-status job failed; the reconciler recreates it now');
      started.jobFailed();
    });
    started.start();
    // Before the pool closes (main.ts, onClose): look-ups in flight finish and record.
    app.addHook('preClose', async () => {
      await started.stop();
      await worker.close();
    });
  }
  app.decorate('statusPollReconciler', reconciler);
  app.addHook('onClose', () => statusQueue.close());
  const paymentService = new PaymentService({
    payments: new PaymentRepository(pool),
    providers,
    keys: config.keys,
    rates: rateReader,
    publicUrl: config.publicUrl,
    ...(raw.CHECKOUT_TIMEOUT_MS !== undefined ? { checkoutTimeoutMs: raw.CHECKOUT_TIMEOUT_MS } : {}),
    log: app.log,
    countCheckout: (provider, outcome, failure) => checkoutMetrics.checkout(provider, outcome, failure),
    statusLookUps: providerStatus,
  });
  app.decorate('paymentService', paymentService);
  // The status look-ups' jobs added behind the answers reach Redis before it closes.
  app.settleBeforeClose(() => paymentService.settled());
  app.decorate(
    'receiptService',
    new ReceiptService(receipts, {
      settledToken: raw.USDC_TOKEN_ADDRESS,
      explorerTxUrl: config.explorerTxUrl,
      providers,
      secondChanceFor: (payment) => paymentService.secondChanceFor(payment),
    }),
  );
  app.decorate(
    'hostedCheckoutService',
    // Rates read through app.rateReader at request time, whichever reader the app holds.
    new HostedCheckoutService({
      keys: config.keys,
      wallets: new WalletLookupRepository(pool),
      rates: { current: () => app.rateReader.current() },
      providers: providers.offered,
    }),
  );

  await app.register(pagesPlugin, { viewsDir: join(APP_ROOT, 'views'), assetsDir: join(APP_ROOT, 'assets') });
  await app.register(paymentRoutes);
  await app.register(receiptRoutes);
  await app.register(hostedCheckoutRoutes);
  await app.register(webhookRoutes);
  return app;
}
