import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import type { Address } from 'viem';
import { createServer } from '@gateway/http';
import { ConfigError } from '@gateway/config';
import {
  ChainCursorRepository,
  DepositRepository,
  isDatabaseReachable,
  logLostConnections,
  TokenRepository,
  type RecordedToken,
} from '@gateway/db/chain-watcher';
import type { ChainWatcherConfig } from './config';
import { WatcherMetrics } from './metrics';
import { ChainReader } from './services/chain-reader';
import { ChainWatcher } from './services/chain-watcher';
import { DepositScanner } from './services/deposit-scanner';
import { FinalityTracker } from './services/finality-tracker';
import { LeaderLock } from './services/leader-lock';
import { SettlementEnqueuer } from './services/settlement-enqueuer';

declare module 'fastify' {
  interface FastifyInstance {
    chainWatcher: ChainWatcher;
  }
}

export interface ChainWatcherAppDeps {
  config: ChainWatcherConfig;
  pool: Pool;
  logger?: FastifyServerOptions['logger'];
}

/**
 * Refuses to watch a token the gateway cannot count in (its decimals() is not 6), or another
 * token than the one this database counts in (recorded by the first app to boot).
 */
async function assertTokenCounted(pool: Pool, chain: ChainReader, token: RecordedToken & { address: Address }): Promise<void> {
  const problem = (await chain.tokenDecimalsProblem(token.address)) ?? (await new TokenRepository(pool).register(token));
  if (problem) throw new ConfigError([`USDC_TOKEN_ADDRESS: ${problem}`]);
}

/**
 * Follows the other USDC only where it is a 6-decimal token. On a chain without a contract at its
 * address (a local chain left with the Polygon default) there is nothing to follow: a warning
 * outside production, a refusal in production.
 */
async function assertOtherTokenCounted(chain: ChainReader, token: Address, production: boolean, log: FastifyBaseLogger): Promise<boolean> {
  const problem = await chain.tokenDecimalsProblem(token);
  if (problem === undefined) return true;
  if (production) throw new ConfigError([`OTHER_USDC_TOKEN_ADDRESS: ${problem}`]);
  log.warn({ token, problem }, 'OTHER_USDC_TOKEN_ADDRESS is not a 6-decimal token on this chain; following USDC_TOKEN_ADDRESS only');
  return false;
}

/**
 * The chain watcher: a loop that follows the chain while this instance leads, and a small HTTP
 * server for /healthz, /readyz (which also says whether this instance leads or stands by; a
 * standby is healthy) and /metrics. Call `app.chainWatcher.start()` to begin watching.
 */
export async function buildChainWatcherApp({ config, pool, logger }: ChainWatcherAppDeps): Promise<FastifyInstance> {
  const { raw } = config;
  const app = await createServer({
    serviceName: 'chain-watcher',
    description: 'Follows USDC Transfer logs into temporary wallets and records deposits until they are final.',
    logLevel: raw.LOG_LEVEL,
    logger,
    readiness: { postgres: () => isDatabaseReachable(pool) },
    // Its only server, on METRICS_PORT: /metrics stays here.
    metricsRoute: true,
  });
  const stopLoggingLostConnections = logLostConnections(pool, app.log);
  app.addHook('onClose', async () => stopLoggingLostConnections());
  const metrics = new WatcherMetrics(app.metrics);
  const cursorKey = { chainId: raw.CHAIN_ID, token: config.tokenAddress };
  const chain = new ChainReader({ rpcUrl: raw.CHAIN_RPC_URL, timeoutMs: raw.RPC_TIMEOUT_MS, metrics });
  await assertTokenCounted(pool, chain, { chainId: raw.CHAIN_ID, address: config.tokenAddress });
  const other = config.otherTokenAddress;
  const followOther = other !== undefined && (await assertOtherTokenCounted(chain, other, raw.NODE_ENV === 'production', app.log));
  const tokens: Address[] = followOther ? [config.tokenAddress, other] : [config.tokenAddress];
  if (followOther) app.log.info({ token: other }, 'following the other USDC too: its deposits are recorded and held for the operator');
  const deposits = new DepositRepository(pool, raw.CHAIN_ID);
  const cursors = new ChainCursorRepository(pool);
  const leader = new LeaderLock({
    connectionString: raw.DATABASE_URL,
    scope: { schema: raw.DATABASE_SCHEMA, chainId: raw.CHAIN_ID, token: config.tokenAddress },
  });
  const settlement = new SettlementEnqueuer({ url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX }, (error) =>
    app.log.warn({ err: error }, 'cannot add settlement jobs yet (Redis); final deposits stay pending and are retried'),
  );
  const scanner = new DepositScanner({
    pool,
    chain,
    deposits,
    cursors,
    cursorKey,
    tokens,
    maxBlockRange: raw.MAX_BLOCK_RANGE,
    metrics,
  });
  const finality = new FinalityTracker({
    pool,
    chain,
    deposits,
    token: config.tokenAddress,
    confirmations: raw.CONFIRMATIONS,
    metrics,
    log: app.log,
  });
  const watcher = new ChainWatcher({
    pool,
    chain,
    leader,
    scanner,
    finality,
    cursors,
    deposits,
    settlement,
    metrics,
    log: app.log,
    options: {
      cursorKey,
      confirmations: raw.CONFIRMATIONS,
      startBlock: config.startBlock,
      pollIntervalMs: raw.POLL_INTERVAL_MS,
      leaderRetryMs: raw.LEADER_RETRY_MS,
      backoffMaxMs: raw.RPC_BACKOFF_MAX_MS,
    },
  });
  app.decorate('chainWatcher', watcher);

  app.addHook('preSerialization', async (request, _reply, payload: unknown) =>
    request.routeOptions.url === '/readyz' && typeof payload === 'object' ? { ...payload, watcher: watcher.status() } : payload,
  );
  // preClose runs before every onClose hook, so the loop stops before the owner closes the pool.
  app.addHook('preClose', async () => {
    await watcher.stop();
    await leader.release();
    await settlement.close();
  });
  return app;
}
