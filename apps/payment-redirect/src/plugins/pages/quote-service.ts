import fp from 'fastify-plugin';
import type { PaymentRedirectConfig } from '../../config';
import { quoteMetrics } from '../../metrics';
import { QuoteService } from '../../services/quotes/quote-service';

declare module 'fastify' {
  interface FastifyInstance {
    /** Providers' quotes per currency and amount band, cached in Redis: the checkout page's rows and Process Payment's expectation. */
    quoteService: QuoteService;
  }
}

export const quoteService = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const service = new QuoteService({
      redis: app.redis,
      keyPrefix: raw.REDIS_PREFIX,
      providers: app.providers,
      rates: app.rateReader,
      settings: { cacheMs: raw.QUOTE_CACHE_MS, callTimeoutMs: raw.QUOTE_TIMEOUT_MS },
      metrics: quoteMetrics(app.metrics),
      logger: app.log,
    });
    app.decorate('quoteService', service);
    // A quote still being asked for is stored before Redis closes.
    app.settleBeforeClose(() => service.settled());
  },
  { name: 'quote-service', dependencies: ['redis', 'providers', 'rate-reader'] },
);
