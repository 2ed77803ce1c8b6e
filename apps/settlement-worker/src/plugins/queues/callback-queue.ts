import fp from 'fastify-plugin';
import { openCallbackQueue, type CallbackQueue } from '@gateway/queue';
import type { SettlementConfig } from '../../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where a forwarded deposit's callback goes (job id = delivery id), closed with the app. */
    callbackQueue: CallbackQueue;
  }
}

export const callbackQueue = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    const queue = openCallbackQueue(config.redis);
    app.addHook('onClose', () => queue.close());
    app.decorate('callbackQueue', queue);
  },
  { name: 'callback-queue' },
);
