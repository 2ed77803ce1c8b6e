import fp from 'fastify-plugin';
import type { RateSourceConfig } from '@gateway/config';
import { createRateReader, registerRateMetrics, type RateReader } from '@gateway/rates';

declare module 'fastify' {
  interface FastifyInstance {
    /** Exchange rates (Convert to USD, provider minimums, the hosted checkout). */
    rateReader: RateReader;
  }
}

/**
 * The configured source behind the Redis cache, refreshed in the background (never on the request
 * path); loaded once before the app serves.
 */
export const rateReaderPlugin = fp<{ settings: RateSourceConfig; keyPrefix: string }>(
  async (app, { settings, keyPrefix }) => {
    const reader = createRateReader({ settings, redis: app.redis, keyPrefix, logger: app.log });
    app.addHook('preClose', () => reader.stop());
    registerRateMetrics(reader, app.metrics);
    await reader.start();
    app.decorate('rateReader', reader);
  },
  { name: 'rate-reader', dependencies: ['redis'] },
);
