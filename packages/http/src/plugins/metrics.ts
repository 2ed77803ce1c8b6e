import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface MetricsPluginOptions {
  serviceName: string;
  /**
   * Serve `/metrics` on this server too. Only for a server on a private port (the workers'
   * health/metrics server); a public API app serves its metrics from createMetricsServer.
   */
  route?: boolean;
}

/** Process metrics plus a request histogram by route (not by raw URL), in `app.metrics`. */
export const metricsPlugin = fp(async (app: FastifyInstance, options: MetricsPluginOptions) => {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.serviceName });
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.decorate('metrics', registry);
  app.addHook('onResponse', async (request, reply) => {
    duration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  if (options.route) metricsRoute(app, registry);
});

/** `GET /metrics`: the registry in Prometheus' text format. */
export function metricsRoute(app: FastifyInstance, registry: Registry): void {
  app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
