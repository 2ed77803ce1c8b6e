import fp from 'fastify-plugin';
import { SettlementRepository } from '@gateway/db/settlement-worker';
import type { SettlementConfig } from '../config';
import { SettlementRuntime } from '../settlement-runtime';

declare module 'fastify' {
  interface FastifyInstance {
    /** The BullMQ worker of final deposits and its reconciler: `start()` begins taking jobs, closing the app stops them. */
    settlement: SettlementRuntime;
  }
}

export const settlementRuntime = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const runtime = new SettlementRuntime(
      {
        service: app.settlementService,
        metrics: app.settlementMetrics,
        log: app.log,
        settings: {
          redis: config.redis,
          concurrency: raw.WORKER_CONCURRENCY,
          jobLockMs: raw.JOB_LOCK_MS,
          reconcileIntervalMs: raw.RECONCILE_INTERVAL_MS,
          pollIntervalMs: raw.POLL_INTERVAL_MS,
        },
        reconciler: { settlements: new SettlementRepository(app.pool), chain: app.settlementChain, relayer: app.relayer },
      },
      app.callbackQueue,
    );
    // preClose: jobs finish and workers stop before onClose hooks (main's pool.end) run.
    app.addHook('preClose', () => runtime.close());
    app.decorate('settlement', runtime);
  },
  {
    name: 'settlement-runtime',
    dependencies: ['postgres', 'settlement-chain', 'settlement-metrics', 'relayer', 'callback-queue', 'settlement-service'],
  },
);
