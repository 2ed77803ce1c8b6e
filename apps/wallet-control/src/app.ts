import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { parseTrustProxy } from '@gateway/config';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import { createServer, postgresPlugin, rateReaderPlugin, redisPlugin } from '@gateway/http';
import { isDatabaseReachable } from '@gateway/db/wallet-control';
import type { WalletControlConfig } from './config';
// Kept in the emitted app.d.ts, where the named imports are not: the tests compile against it, and these declare what
// the kit and the plugins decorate the app with.
import '@gateway/http';
import './plugins';
import {
  addressDeriver,
  tokenCheck,
  walletControlMetrics,
  payoutQuota,
  walletService,
  paymentStatusService,
  callbackResendService,
} from './plugins';
import { controlRoutes } from './routes/control';
import { affiliateRoutes } from './routes/affiliate';
import { statusRoutes } from './routes/status';
import { callbackResendRoutes } from './routes/callback-resend';
import { keyRoutes } from './routes/keys';
import { convertRoutes } from './routes/convert';
import { adminRoutes } from './routes/admin';

export interface WalletControlDeps {
  config: WalletControlConfig;
  pool: Pool;
  /** Rate-limit counters shared by every replica (and cached exchange rates). */
  redis: IORedis;
  logger?: FastifyServerOptions['logger'];
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
  await app.register(postgresPlugin, { pool });
  await app.register(redisPlugin, { redis });
  await app.register(addressDeriver, { config });
  await app.register(tokenCheck, { config });
  await app.register(walletControlMetrics);
  await app.register(payoutQuota, { config });
  await app.register(walletService, { config });
  await app.register(paymentStatusService, { config });
  await app.register(callbackResendService);
  await app.register(rateReaderPlugin, { settings: config.rates, keyPrefix: raw.REDIS_PREFIX });

  await app.register(convertRoutes(app.rateReader));
  await app.register(controlRoutes);
  await app.register(affiliateRoutes);
  await app.register(statusRoutes({ rateLimitMax: raw.STATUS_RATE_LIMIT_MAX, rateLimitWindowMs: raw.RATE_LIMIT_WINDOW_MS }));
  await app.register(callbackResendRoutes({ rateLimitMax: raw.STATUS_RATE_LIMIT_MAX, rateLimitWindowMs: raw.RATE_LIMIT_WINDOW_MS }));
  await app.register(keyRoutes(config.callbackPublicKeys));
  if (raw.ADMIN_TOKEN !== undefined) await app.register(adminRoutes({ token: raw.ADMIN_TOKEN, pool }));
  return app;
}
