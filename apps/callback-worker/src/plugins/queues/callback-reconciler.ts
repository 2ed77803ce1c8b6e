import fp from 'fastify-plugin';
import { CallbackDeliveryRepository } from '@gateway/db/callback-worker';
import type { CallbackWorkerConfig } from '../../config';
import { CallbackReconciler } from '../../services/callback-reconciler';

declare module 'fastify' {
  interface FastifyInstance {
    /** Rebuilds lost callback jobs from PostgreSQL; the callback queue's consumer starts and stops it. */
    callbackReconciler: CallbackReconciler;
  }
}

export const callbackReconciler = fp<{ config: CallbackWorkerConfig }>(
  async (app, { config }) => {
    const metrics = app.callbackMetrics;
    app.decorate(
      'callbackReconciler',
      new CallbackReconciler(
        new CallbackDeliveryRepository(app.pool),
        app.callbackQueue,
        app.log,
        { intervalMs: config.raw.RECONCILE_INTERVAL_MS },
        (count) => metrics.reconcilerEnqueued.inc(count),
      ),
    );
  },
  { name: 'callback-reconciler', dependencies: ['postgres', 'callback-queue', 'callback-metrics'] },
);
