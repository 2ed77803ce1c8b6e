import fp from 'fastify-plugin';
import { openProviderStatusQueue, type ProviderStatusQueue } from '@gateway/queue';
import type { PaymentRedirectConfig } from '../../config';

declare module 'fastify' {
  interface FastifyInstance {
    /** Status look-ups (issue 23): a BullMQ job per payment. */
    providerStatusQueue: ProviderStatusQueue;
  }
}

export const providerStatusQueue = fp<{ config: PaymentRedirectConfig }>(
  async (app, { config }) => {
    const queue = openProviderStatusQueue({ url: config.raw.REDIS_URL, prefix: config.raw.REDIS_PREFIX });
    queue.on('error', (error) => app.log.warn({ err: error }, 'provider-status queue connection error'));
    app.addHook('onClose', () => queue.close());
    app.decorate('providerStatusQueue', queue);
  },
  { name: 'provider-status-queue' },
);
