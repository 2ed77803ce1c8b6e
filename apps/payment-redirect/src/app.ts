import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { createServer } from '@gateway/http';
import { isDatabaseReachable, logLostConnections, PaymentRepository } from '@gateway/db';
import { createProviderRegistry } from '@gateway/providers';
import type { PaymentRedirectConfig } from './config';
import { PaymentService } from './services/payment-service';
import { paymentRoutes } from './routes/payment';

declare module 'fastify' {
  interface FastifyInstance {
    paymentService: PaymentService;
  }
}

export interface PaymentRedirectDeps {
  config: PaymentRedirectConfig;
  pool: Pool;
  logger?: FastifyServerOptions['logger'];
}

/** The {payment_url} host: customers arrive here and leave, top-level, for the provider. */
export async function buildPaymentRedirectApp({ config, pool, logger }: PaymentRedirectDeps): Promise<FastifyInstance> {
  const { raw } = config;
  const app = await createServer({
    serviceName: 'payment-redirect',
    description: 'Payment links: validates the order and redirects the customer to the provider (the {payment_url} host).',
    logLevel: raw.LOG_LEVEL,
    logger,
    trustProxy: raw.TRUST_PROXY,
    rateLimit: { max: raw.RATE_LIMIT_MAX, windowMs: raw.RATE_LIMIT_WINDOW_MS },
    readiness: { postgres: () => isDatabaseReachable(pool) },
  });
  logLostConnections(pool, app.log);
  app.decorate(
    'paymentService',
    new PaymentService({
      payments: new PaymentRepository(pool),
      adapters: createProviderRegistry({
        sandbox: { baseUrl: raw.SANDBOX_PROVIDER_URL, signingSecret: config.sandboxSecret },
        allowSandbox: raw.NODE_ENV !== 'production',
      }),
      publicUrl: raw.PUBLIC_URL,
      keys: config.keys,
      rates: config.rates,
    }),
  );
  await app.register(paymentRoutes);
  return app;
}
