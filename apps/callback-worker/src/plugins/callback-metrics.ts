import fp from 'fastify-plugin';
import { CallbackDeliveryRepository } from '@gateway/db/callback-worker';
import { registerCallbackMetrics, type CallbackMetrics } from '../metrics';

declare module 'fastify' {
  interface FastifyInstance {
    callbackMetrics: CallbackMetrics;
  }
}

export const callbackMetrics = fp(
  async (app) => {
    const metrics = registerCallbackMetrics(app.metrics, {
      queue: app.callbackQueue,
      deliveries: new CallbackDeliveryRepository(app.pool),
    });
    app.decorate('callbackMetrics', metrics);
  },
  { name: 'callback-metrics', dependencies: ['postgres', 'callback-queue'] },
);
