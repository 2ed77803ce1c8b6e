import fp from 'fastify-plugin';
import { QueueConsumer, SETTLEMENT_JOB_NAME, settlementWorkerDefinition, type SettlementJob } from '@gateway/queue';
import type { SettlementConfig } from '../../config';
import { settleDepositJob } from '../../jobs/settle-deposit';

declare module 'fastify' {
  interface FastifyInstance {
    /** The settlement queue's worker and its reconciler: started when the app listens, closed before it closes. */
    settlementConsumer: QueueConsumer<SettlementJob, typeof SETTLEMENT_JOB_NAME, { concurrency: number; jobLockMs: number }>;
  }
}

/** The consumer of the settlement queue: its job (jobs/settle-deposit.ts) forwards final deposits. */
export const settlementConsumer = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    const { raw } = config;
    const { settlementMetrics: metrics, log } = app;
    const consumer = new QueueConsumer(settlementWorkerDefinition, {
      redis: config.redis,
      settings: { concurrency: raw.WORKER_CONCURRENCY, jobLockMs: raw.JOB_LOCK_MS },
      handlers: {
        [SETTLEMENT_JOB_NAME]: settleDepositJob({ service: app.settlementService, metrics, pollIntervalMs: raw.POLL_INTERVAL_MS }),
      },
      reconciler: app.settlementReconciler,
      onFailed: (job, error) =>
        log.warn({ depositId: job?.data.depositId, attempt: job?.attemptsMade, reason: error.message }, 'settlement job run failed'),
      onError: (error) => log.error({ reason: error.message }, 'settlement worker error'),
    });
    app.decorate('settlementConsumer', consumer);
    app.addHook('onListen', async () => consumer.start());
    // Before the server closes and main.ts ends the pool (onClose): runs in progress finish their
    // round and go back to `delayed`, for whichever process runs next.
    app.addHook('preClose', () => consumer.close());
  },
  { name: 'settlement-consumer', dependencies: ['settlement-metrics', 'settlement-service', 'settlement-reconciler'] },
);
