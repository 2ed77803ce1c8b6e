import fp from 'fastify-plugin';
import { createRateReader, registerRateMetrics, type RateReader } from '@gateway/rates';
import type { WalletControlConfig } from '../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** Exchange rates for Convert to USD. */
    rateReader: RateReader;
  }
}

/**
 * The configured source behind the Redis cache, refreshed in the background (never on the request
 * path); loaded once before the app serves.
 */
export const rateReader = fp<{ config: WalletControlConfig }>(
  async (app, { config }) => {
    const reader = createRateReader({ settings: config.rates, redis: app.redis, keyPrefix: config.raw.REDIS_PREFIX, logger: app.log });
    app.addHook('preClose', () => reader.stop());
    registerRateMetrics(reader, app.metrics);
    await reader.start();
    app.decorate('rateReader', reader);
  },
  { name: 'rate-reader', dependencies: ['redis'] },
);
