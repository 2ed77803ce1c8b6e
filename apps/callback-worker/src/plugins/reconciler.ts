import fp from 'fastify-plugin';
import { CallbackDeliveryRepository } from '@gateway/db/callback-worker';
import type { CallbackWorkerConfig } from '../config';
import { Reconciler } from '../services/reconciler';

declare module 'fastify' {
  interface FastifyInstance {
    /** Rebuilds lost callback jobs from PostgreSQL; the callback worker starts and stops it. */
    reconciler: Reconciler;
  }
}

export const reconciler = fp<{ config: CallbackWorkerConfig }>(
  async (app, { config }) => {
    const metrics = app.callbackMetrics;
    app.decorate(
      'reconciler',
      new Reconciler(
        new CallbackDeliveryRepository(app.pool),
        app.callbackQueue,
        app.log,
        { intervalMs: config.raw.RECONCILE_INTERVAL_MS },
        (count) => metrics.reconcilerEnqueued.inc(count),
      ),
    );
  },
  { name: 'reconciler', dependencies: ['postgres', 'callback-queue', 'callback-metrics'] },
);
