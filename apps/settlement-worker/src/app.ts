import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { createServer } from '@gateway/http';
import { fingerprintFromMnemonic, tokenDecimalsProblem } from '@gateway/chain';
import { ConfigError } from '@gateway/config';
import {
  GatewayAddressRepository,
  HdKeyRepository,
  TokenRepository,
  isDatabaseReachable,
  logLostConnections,
  PayoutRepository,
  SettlementRepository,
} from '@gateway/db/settlement-worker';
import { openCallbackQueue } from '@gateway/queue';
import type { SettlementConfig } from './config';
import { SettlementMetrics } from './metrics';
import { CallbackQueueEnqueuer, SettlementRuntime } from './settlement-runtime';
import { crashAt, noCrashes } from './crash-points';
import { DepositReplanner } from './services/deposit-replanner';
import { payoutCosting } from './legs/payout-costing';
import { PayoutFinality } from './legs/payout-finality';
import { PayoutLegDriver } from './legs/payout-leg-driver';
import { Relayer } from './chain/relayer';
import { RelayerOutbox } from './chain/relayer-outbox';
import type { SettlementChainClient } from './chain/settlement-chain-client';
import { SettlementService } from './services/settlement-service';
import { TemporaryWalletKeys } from './chain/temporary-wallet-keys';

declare module 'fastify' {
  interface FastifyInstance {
    settlement: SettlementRuntime;
    settlementService: SettlementService;
    /** The replan command's work: a new plan for a deposit that needs attention. */
    replanner: DepositReplanner;
  }
}

export interface SettlementWorkerDeps {
  config: SettlementConfig;
  pool: Pool;
  /** Connected at boot: the token's EIP-712 domain has been read from the chain. */
  chain: SettlementChainClient;
  logger?: FastifyServerOptions['logger'];
}

/**
 * Refuses to settle with a seed whose key is not the one wallet-control registered (it derived
 * the temporary wallets from that key's xpub): every signature would be for the wrong address.
 */
export async function assertSeedDerivedTheWallets(keys: HdKeyRepository, fingerprint: string): Promise<void> {
  const known = await keys.list();
  if (known.length === 0 || (known.length === 1 && known[0] === fingerprint)) return;
  throw new ConfigError([
    `SETTLEMENT_MNEMONIC: its key m/44'/60'/0'/0 (fingerprint ${fingerprint}) is not the key this database's temporary wallets were derived from (${known.join(', ')}); configure the seed whose xpub wallet-control uses`,
  ]);
}

/**
 * Refuses to pay in a token the gateway cannot count in (its decimals() is not 6), or in another
 * token than the one this database counts in (recorded by the first app to boot).
 */
export async function assertTokenCounted(pool: Pool, chain: SettlementChainClient): Promise<void> {
  const token = { chainId: chain.chainId, address: chain.token };
  const problem = (await tokenDecimalsProblem(chain.client, chain.token)) ?? (await new TokenRepository(pool).register(token));
  if (problem) throw new ConfigError([`USDC_TOKEN_ADDRESS: ${problem}`]);
}

/**
 * The settlement worker: a BullMQ consumer of final deposits plus /healthz, /readyz and /metrics.
 * It alone holds the seed of the temporary wallets and the relayer key. Call
 * `app.settlement.start()` to begin taking jobs; closing the app stops them.
 */
export async function buildSettlementWorkerApp({ config, pool, chain, logger }: SettlementWorkerDeps): Promise<FastifyInstance> {
  const { raw } = config;
  let runtime: SettlementRuntime | undefined;
  const app = await createServer({
    serviceName: 'settlement-worker',
    description: 'Forwards final USDC deposits to the payout wallets (less the fee) with EIP-3009 authorizations.',
    logLevel: raw.LOG_LEVEL,
    logger,
    readiness: {
      postgres: () => isDatabaseReachable(pool),
      redis: async () => (runtime ? runtime.isRedisReachable() : false),
      chain: async () => (await chain.blockNumber()) >= 0n,
    },
    // Its only server, on METRICS_PORT: /metrics stays here.
    metricsRoute: true,
  });
  const stopLoggingLostConnections = logLostConnections(pool, app.log);
  app.addHook('onClose', async () => stopLoggingLostConnections());
  await assertSeedDerivedTheWallets(new HdKeyRepository(pool), fingerprintFromMnemonic(config.mnemonic));
  await assertTokenCounted(pool, chain);
  const metrics = new SettlementMetrics(app.metrics);
  const settlements = new SettlementRepository(pool);
  const payouts = new PayoutRepository(pool);
  const relayer = new Relayer(config.relayerKey, chain.chainId, raw.FEE_BUMP_PERCENT, config.maxFeePerGas);
  // Only this app knows them; the chain watcher reads them to ignore the gateway's own transfers.
  await new GatewayAddressRepository(pool).register([
    { address: relayer.address, role: 'relayer' },
    { address: config.platformFeeAddress, role: 'platform_fee' },
  ]);
  const log = app.log;
  const finality = new PayoutFinality({ chain, confirmations: raw.CONFIRMATIONS, metrics, log: app.log });
  // Asked at boot so /metrics and the log say which rule applies before the first payout; asked again at every check.
  await finality.refresh();
  const crash = config.crashAt ? crashAt(config.crashAt) : noCrashes;
  // One outbox for every relayer transaction, the payouts' and the replan command's cancellations.
  const outbox = new RelayerOutbox({ payouts, chain, relayer, metrics, log, crash });
  const legs = new PayoutLegDriver({
    payouts,
    chain,
    finality,
    outbox,
    metrics,
    log,
    crash,
    settings: {
      stuckTxTimeoutMs: raw.STUCK_TX_TIMEOUT_MS,
      authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
    },
  });
  const callbackQueue = openCallbackQueue(config.redis);
  const keys = new TemporaryWalletKeys(config.mnemonic);
  const service = new SettlementService({
    settlements,
    payouts,
    legs,
    keys,
    callbacks: new CallbackQueueEnqueuer(callbackQueue),
    costing: payoutCosting(config, chain, relayer),
    metrics,
    log,
    settings: {
      platformFeeAddress: config.platformFeeAddress,
      settledToken: config.tokenAddress,
      dustThreshold: config.dustThreshold,
      authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
    },
  });
  runtime = new SettlementRuntime(
    {
      service,
      metrics,
      log,
      settings: {
        redis: config.redis,
        concurrency: raw.WORKER_CONCURRENCY,
        jobLockMs: raw.JOB_LOCK_MS,
        reconcileIntervalMs: raw.RECONCILE_INTERVAL_MS,
        pollIntervalMs: raw.POLL_INTERVAL_MS,
      },
      reconciler: { settlements, chain, relayer },
    },
    callbackQueue,
  );
  app.decorate('settlement', runtime);
  app.decorate('settlementService', service);
  app.decorate(
    'replanner',
    new DepositReplanner({
      settlements,
      payouts,
      chain,
      outbox,
      keys,
      finality: new PayoutFinality({ chain, confirmations: raw.CONFIRMATIONS, metrics, log }),
      settings: {
        platformFeeAddress: config.platformFeeAddress,
        authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
        pollIntervalMs: raw.POLL_INTERVAL_MS,
        stuckTxTimeoutMs: raw.STUCK_TX_TIMEOUT_MS,
      },
    }),
  );
  // preClose: jobs finish and workers stop before onClose hooks (main's pool.end) run.
  app.addHook('preClose', () => runtime.close());
  return app;
}
