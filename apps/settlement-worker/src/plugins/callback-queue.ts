import fp from 'fastify-plugin';
import { openCallbackQueue, type CallbackQueue } from '@gateway/queue';
import type { SettlementConfig } from '../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where a forwarded deposit's callback goes (job id = delivery id); the settlement runtime closes it. */
    callbackQueue: CallbackQueue;
  }
}

export const callbackQueue = fp<{ config: SettlementConfig }>(
  async (app, { config }) => {
    app.decorate('callbackQueue', openCallbackQueue(config.redis));
  },
  { name: 'callback-queue' },
);
