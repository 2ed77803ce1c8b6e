import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}

/** Prometheus `/metrics`: process metrics plus a request histogram by route (not by raw URL). */
export const metricsPlugin = fp(async (app: FastifyInstance, options: { serviceName: string; registry?: Registry }) => {
  const registry = options.registry ?? new Registry();
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
  app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
});
