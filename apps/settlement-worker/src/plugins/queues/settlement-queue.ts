import fp from 'fastify-plugin';
import { openSettlementQueue, type SettlementQueue } from '@gateway/queue';
import type { SettlementConfig } from '../../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** The reconciler's and the readiness check's connection to the settlement queue, closed with the app. */
    settlementQueue: SettlementQueue;
  }
}

export const settlementQueue = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    const queue = openSettlementQueue(config.redis);
    app.addHook('onClose', () => queue.close());
    app.decorate('settlementQueue', queue);
  },
  { name: 'settlement-queue' },
);
