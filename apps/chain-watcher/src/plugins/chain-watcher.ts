import fp from 'fastify-plugin';
import { ChainCursorRepository, DepositRepository } from '@gateway/db/chain-watcher';
import type { ChainWatcherConfig } from '../config';
import { ChainWatcher } from '../services/chain-watcher';
import { DepositScanner } from '../services/deposit-scanner';
import { FinalityTracker } from '../services/finality-tracker';
import { LeaderLock } from '../services/leader-lock';
import { SettlementEnqueuer } from '../services/settlement-enqueuer';

declare module 'fastify' {
  interface FastifyInstance {
    /** The loop that follows the chain while this instance leads; `start()` begins it, closing the app stops it. */
    chainWatcher: ChainWatcher;
  }
}

/**
 * The watcher and what it drives: the leader lock, the deposit scanner, the finality tracker and
 * the settlement queue. /readyz also says whether this instance leads or stands by.
 */
export const chainWatcher = fp<{ config: ChainWatcherConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const { pool, chainReader: chain, watcherMetrics: metrics } = app;
    const cursorKey = { chainId: raw.CHAIN_ID, token: config.tokenAddress };
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
      tokens: app.watchedTokens,
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
  },
  { name: 'chain-watcher', dependencies: ['postgres', 'chain-reader', 'watcher-metrics', 'watched-tokens'] },
);
