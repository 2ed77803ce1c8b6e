import fp from 'fastify-plugin';
import { WatcherMetrics } from '../metrics';

declare module 'fastify' {
  interface FastifyInstance {
    watcherMetrics: WatcherMetrics;
  }
}

export const watcherMetrics = fp(
  async (app) => {
    app.decorate('watcherMetrics', new WatcherMetrics(app.metrics));
  },
  { name: 'watcher-metrics' },
);
