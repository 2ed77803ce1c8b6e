import fp from 'fastify-plugin';
import { openCallbackQueue, type CallbackQueue } from '@gateway/queue';
import type { CallbackWorkerConfig } from '../../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** The reconciler's and the metrics' connection to the callback queue, closed with the app. */
    callbackQueue: CallbackQueue;
  }
}

export const callbackQueue = fp<{ config: CallbackWorkerConfig }>(
  async (app, { config }) => {
    const queue = openCallbackQueue({ url: config.raw.REDIS_URL, prefix: config.raw.REDIS_PREFIX });
    // While Redis is away it reports every reconnect try.
    queue.on('error', (error) => app.log.warn({ err: error }, 'callback queue connection error; the reconciler retries at its next pass'));
    app.addHook('onClose', () => queue.close());
    app.decorate('callbackQueue', queue);
  },
  { name: 'callback-queue' },
);
