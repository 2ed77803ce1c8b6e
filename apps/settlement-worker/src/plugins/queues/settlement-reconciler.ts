import fp from 'fastify-plugin';
import { SettlementRepository } from '@gateway/db/settlement-worker';
import type { SettlementConfig } from '../../config';
import { SettlementReconciler } from '../../services/settlement-reconciler';

declare module 'fastify' {
  interface FastifyInstance {
    /** Gives every deposit owing settlement a live job, from PostgreSQL; the settlement queue's consumer starts and stops it. */
    settlementReconciler: SettlementReconciler;
  }
}

export const settlementReconciler = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    app.decorate(
      'settlementReconciler',
      new SettlementReconciler({
        settlements: new SettlementRepository(app.pool),
        queue: app.settlementQueue,
        chain: app.settlementChain,
        relayer: app.relayer,
        metrics: app.settlementMetrics,
        log: app.log,
        intervalMs: config.raw.RECONCILE_INTERVAL_MS,
      }),
    );
  },
  { name: 'settlement-reconciler', dependencies: ['postgres', 'settlement-queue', 'settlement-chain', 'relayer', 'settlement-metrics'] },
);
