import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { ConfigError, parseTrustProxy } from '@gateway/config';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import { createServer } from '@gateway/http';
import {
  HdKeyRepository,
  isDatabaseReachable,
  logLostConnections,
  PaymentStatusRepository,
  TokenRepository,
  WalletRepository,
} from '@gateway/db/wallet-control';
import { TemporaryAddressDeriver } from '@gateway/chain';
import { createRateReader, registerRateMetrics } from '@gateway/rates';
import type { WalletControlConfig } from './config';
import { registerWalletControlMetrics, type WalletControlMetrics } from './metrics';
import { AddressSupply } from './services/address-supply';
import { PayoutQuota } from './services/payout-quota';
import { WalletService } from './services/wallet-service';
import { PaymentStatusService } from './services/payment-status-service';
import { controlRoutes } from './routes/control';
import { affiliateRoutes } from './routes/affiliate';
import { statusRoutes } from './routes/status';
import { keyRoutes } from './routes/keys';
import { convertRoutes } from './routes/convert';
import { adminRoutes } from './routes/admin';

declare module 'fastify' {
  interface FastifyInstance {
    walletService: WalletService;
    paymentStatusService: PaymentStatusService;
  }
}

export interface WalletControlDeps {
  config: WalletControlConfig;
  pool: Pool;
  /** Rate-limit counters shared by every replica (and cached exchange rates). */
  redis: IORedis;
  logger?: FastifyServerOptions['logger'];
}

/**
 * Refuses to serve with an xpub other than the one this database's wallets were derived from:
 * its addresses would be ones the settlement seed cannot sign for.
 */
async function assertKnownHdKey(keys: HdKeyRepository, fingerprint: string): Promise<void> {
  const known = await keys.registerAndList(fingerprint);
  if (known.length === 1 && known[0] === fingerprint) return;
  throw new ConfigError([
    `HD_XPUB: its key (fingerprint ${fingerprint}) is not the key this database's temporary wallets were derived from ` +
      `(${known.join(', ')}); configure that xpub, or use another database`,
  ]);
}

const STORE_ERROR_LOG_INTERVAL_MS = 10_000;

/** Redis did not answer the quota's count: this process's counts decide; counted, and logged at most every 10 s. */
function storeErrorReporter(log: FastifyBaseLogger, metrics: WalletControlMetrics): (error: Error) => void {
  let lastLogged = 0;
  return (error) => {
    metrics.payoutQuotaStoreErrors.inc();
    if (Date.now() - lastLogged < STORE_ERROR_LOG_INTERVAL_MS) return;
    lastLogged = Date.now();
    log.warn(
      { err: error },
      'payout quota store (Redis) unavailable; each replica counts the quota and the ceiling on its own until it answers',
    );
  };
}

/** The {base_url} host. Holds the xpub only: it derives addresses and can move no funds. */
export async function buildWalletControlApp({ config, pool, redis, logger }: WalletControlDeps): Promise<FastifyInstance> {
  const { raw } = config;
  const app = await createServer({
    serviceName: 'wallet-control',
    description: 'Temporary receiving wallets for USDC on Polygon (the {base_url} host).',
    logLevel: raw.LOG_LEVEL,
    logger,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    rateLimit: { max: raw.RATE_LIMIT_MAX, windowMs: raw.RATE_LIMIT_WINDOW_MS, redis, keyPrefix: raw.REDIS_PREFIX },
    readiness: { postgres: () => isDatabaseReachable(pool) },
  });
  const stopLoggingLostConnections = logLostConnections(pool, app.log);
  app.addHook('onClose', async () => stopLoggingLostConnections());
  const wallets = new WalletRepository(pool);
  const deriver = new TemporaryAddressDeriver(raw.HD_XPUB);
  await assertKnownHdKey(new HdKeyRepository(pool), deriver.fingerprint);
  // Amounts here are in the token the database counts in (migration 016): another one refuses to boot.
  const otherToken = await new TokenRepository(pool).register({ chainId: raw.CHAIN_ID, address: config.tokenAddress });
  if (otherToken) throw new ConfigError([`USDC_TOKEN_ADDRESS: ${otherToken}`]);
  const { backends } = deriver;
  app.log.info({ keyFingerprint: deriver.fingerprint, ...backends }, 'deriving temporary addresses');
  if (backends.secp256k1 !== 'native' || backends.keccak !== 'native') {
    app.log.warn(backends, 'a native crypto binding did not load: deriving addresses partly in JavaScript, several times slower');
  }
  const metrics = registerWalletControlMetrics(app.metrics);
  const addressSupply = new AddressSupply(wallets, deriver, {
    reserveBatch: raw.HD_INDEX_RESERVE_BATCH,
    onReserved: metrics.hdIndexesReserved,
  });
  const quota = new PayoutQuota(redis, {
    ...config.payoutQuota,
    keyPrefix: raw.REDIS_PREFIX,
    onStoreError: storeErrorReporter(app.log, metrics),
    onRefused: (reason) => metrics.newWalletsRefused.inc({ reason }),
  });
  // The counts of the last wallets reach Redis before it closes.
  app.settleBeforeClose(() => quota.settled());
  app.decorate(
    'walletService',
    new WalletService({
      wallets,
      addresses: addressSupply,
      keys: config.keys,
      tokenAddress: config.tokenAddress,
      allowTestDomains: raw.CALLBACK_ALLOW_TEST_DOMAINS,
      callbackAllowedCidrs: config.callbackAllowedCidrs,
      platformFeeBps: raw.PLATFORM_FEE_BPS,
      affiliateShareBps: raw.AFFILIATE_SHARE_BPS,
      requireHttps: raw.NODE_ENV === 'production',
      pins: config.pins,
      affiliateWallets: config.affiliateWallets,
      quota,
      callbackOwnership: raw.CALLBACK_OWNERSHIP,
    }),
  );
  app.decorate('paymentStatusService', new PaymentStatusService(new PaymentStatusRepository(pool), config.tokenAddress));
  // Exchange rates for Convert to USD: the configured source behind the Redis cache, refreshed in
  // the background (never on the request path); loaded once before the app serves.
  const rateReader = createRateReader({ settings: config.rates, redis, keyPrefix: raw.REDIS_PREFIX, logger: app.log });
  app.addHook('preClose', () => rateReader.stop());
  registerRateMetrics(rateReader, app.metrics);
  await rateReader.start();
  await app.register(convertRoutes(rateReader));
  await app.register(controlRoutes);
  await app.register(affiliateRoutes);
  await app.register(statusRoutes({ rateLimitMax: raw.STATUS_RATE_LIMIT_MAX, rateLimitWindowMs: raw.RATE_LIMIT_WINDOW_MS }));
  await app.register(keyRoutes(config.callbackPublicKeys));
  if (raw.ADMIN_TOKEN !== undefined) await app.register(adminRoutes({ token: raw.ADMIN_TOKEN, pool }));
  return app;
}
