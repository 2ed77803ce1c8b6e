import fp from 'fastify-plugin';
import type { ChainWatcherConfig } from '../config';
import { ChainReader } from '../services/chain-reader';

declare module 'fastify' {
  interface FastifyInstance {
    /** Reads blocks and Transfer logs from CHAIN_RPC_URL. */
    chainReader: ChainReader;
  }
}

export const chainReader = fp<{ config: ChainWatcherConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    app.decorate('chainReader', new ChainReader({ rpcUrl: raw.CHAIN_RPC_URL, timeoutMs: raw.RPC_TIMEOUT_MS, metrics: app.watcherMetrics }));
  },
  { name: 'chain-reader', dependencies: ['watcher-metrics'] },
);
