import type { FastifyInstance } from 'fastify';
import { createBaseServer } from './create-server';
import { healthPlugin } from './plugins/health';
import { metricsRoute } from './plugins/metrics';

/**
 * The API app's `/metrics`, `/healthz` and `/readyz` on a server of their own, for a port that is
 * not public (METRICS_PORT): it reads the app's registry and runs the app's readiness checks, and
 * answers errors like every other gateway server. It does not listen; close it after the app.
 */
export async function createMetricsServer(app: FastifyInstance): Promise<FastifyInstance> {
  const server = await createBaseServer({ loggerInstance: app.log.child({ server: 'metrics' }) });
  await server.register(healthPlugin, { checks: app.readinessChecks });
  metricsRoute(server, app.metrics);
  return server;
}
