import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { createServer, postgresPlugin } from '@gateway/http';
import { isDatabaseReachable } from '@gateway/db/settlement-worker';
import type { SettlementConfig } from './config';
import type { SettlementChainClient } from './chain/settlement-chain-client';
// Kept in the emitted app.d.ts, where the named imports are not: the tests compile against it, and these declare what
// the kit and the plugins decorate the app with.
import '@gateway/http';
import './plugins';
import {
  temporaryWalletKeys,
  settlementChain,
  settlementMetrics,
  relayer,
  payoutFinality,
  relayerOutbox,
  callbackQueue,
  settlementQueue,
  settlementService,
  settlementReconciler,
  settlementConsumer,
} from './plugins';

export interface SettlementWorkerDeps {
  config: SettlementConfig;
  pool: Pool;
  /** Connected at boot: the token's EIP-712 domain has been read from the chain. */
  chain: SettlementChainClient;
  logger?: FastifyServerOptions['logger'];
}

/**
 * The settlement worker: a BullMQ consumer of final deposits plus /healthz, /readyz and /metrics.
 * It alone holds the seed of the temporary wallets and the relayer key. It takes jobs once it
 * listens (or `app.settlementConsumer.start()`); closing the app stops them.
 */
export async function buildSettlementWorkerApp({ config, pool, chain, logger }: SettlementWorkerDeps): Promise<FastifyInstance> {
  const app = await createServer({
    serviceName: 'settlement-worker',
    description: 'Forwards final USDC deposits to the payout wallets (less the fee) with EIP-3009 authorizations.',
    logLevel: config.raw.LOG_LEVEL,
    logger,
    readiness: {
      postgres: () => isDatabaseReachable(pool),
      redis: async () => (app.hasDecorator('settlementQueue') ? app.settlementQueue.getJobCounts('waiting').then(() => true) : false),
      chain: async () => (await chain.blockNumber()) >= 0n,
    },
    // Its only server, on METRICS_PORT: /metrics stays here.
    metricsRoute: true,
  });
  await app.register(postgresPlugin, { pool });
  await app.register(temporaryWalletKeys, { config });
  await app.register(settlementChain, { chain });
  await app.register(settlementMetrics);
  await app.register(relayer, { config });
  await app.register(payoutFinality, { config });
  await app.register(relayerOutbox, { config });
  await app.register(callbackQueue, { config });
  await app.register(settlementQueue, { config });
  await app.register(settlementService, { config });
  await app.register(settlementReconciler, { config });
  await app.register(settlementConsumer, { config });
  return app;
}
