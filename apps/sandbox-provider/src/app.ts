import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { parseTrustProxy } from '@gateway/config';
import type { Pool } from 'pg';
import { isDatabaseReachable } from '@gateway/db';
import { createServer, postgresPlugin } from '@gateway/http';
import { pagesPlugin } from '@gateway/pages';
import type { SandboxProviderConfig } from './config';
import { SandboxMetrics } from './metrics';
import { checkSandboxSafety } from './services/sandbox-safety';
import { createFunderWallet, type FunderWallet } from './services/funder-wallet';
// Kept in the emitted app.d.ts, where the named imports are not: the tests compile against it, and these declare what
// the kit and the plugins decorate the app with.
import '@gateway/http';
import './plugins';
import { funderWallet, sandboxCheckout } from './plugins';
import { checkoutRoutes } from './routes/checkout';
import { orderRoutes } from './routes/orders';

export interface SandboxProviderDeps {
  config: SandboxProviderConfig;
  pool: Pool;
  logger?: FastifyServerOptions['logger'];
  /** Defaults to the funded test account of the configuration on CHAIN_RPC_URL. */
  funder?: FunderWallet;
  /** How long a post waits for its transfer to be mined before showing "in progress"; 20 s by default. */
  receiptTimeoutMs?: number;
}

/**
 * Development only: a simulated card on-ramp. It shows the checkout page the gateway links to,
 * takes test cards, and pays the order in test USDC on the local chain. It refuses anything that
 * looks like a real chain or real USDC first, and finishes the orders a crash interrupted. Does not listen.
 */
export async function buildSandboxProviderApp({
  config,
  pool,
  logger,
  funder = createFunderWallet(config),
  receiptTimeoutMs,
}: SandboxProviderDeps): Promise<FastifyInstance> {
  const { raw } = config;
  await checkSandboxSafety(config, funder);
  const app = await createServer({
    serviceName: 'sandbox-provider',
    description: 'Development only: a simulated card on-ramp that pays test USDC on the local chain.',
    logLevel: raw.LOG_LEVEL,
    logger,
    trustProxy: parseTrustProxy(raw.TRUST_PROXY),
    rateLimit: { max: raw.RATE_LIMIT_MAX, windowMs: raw.RATE_LIMIT_WINDOW_MS },
    readiness: {
      postgres: () => isDatabaseReachable(pool),
      chain: async () => (await funder.rpcChainId()) === raw.CHAIN_ID,
    },
  });
  await app.register(postgresPlugin, { pool });
  await app.register(funderWallet, { funder });
  await app.register(sandboxCheckout, { config, receiptTimeoutMs });

  await app.register(pagesPlugin, { viewsDir: join(__dirname, '..', 'views') });
  await app.register(checkoutRoutes, {
    checkout: app.sandboxCheckout,
    link: { secret: config.signingSecret, rates: config.rates, feeBps: raw.PROVIDER_FEE_BPS },
    metrics: new SandboxMetrics(app.metrics),
  });
  await app.register(orderRoutes, { checkout: app.sandboxCheckout, secret: config.signingSecret });
  return app;
}
