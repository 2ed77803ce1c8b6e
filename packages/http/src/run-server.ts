import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { createMetricsServer } from './metrics-server';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface RunServerOptions {
  /**
   * Where the app's `/metrics`, `/healthz` and `/readyz` are served apart from the public port
   * (METRICS_HOST / METRICS_PORT of an API app). Leave it out for a server that is private
   * already and serves `/metrics` itself (the workers).
   */
  metrics?: ListenAddress;
  /** How long a close may take before the process exits anyway (default 10 s). */
  closeDelayMs?: number;
}

/**
 * Listens (and, with `metrics`, starts the metrics server beside the app), and on SIGTERM/SIGINT
 * stops taking connections, lets requests in flight finish and runs the app's onClose hooks
 * (pools, queues) before exiting; the metrics server closes last. A stuck close is cut off.
 */
export async function runServer(app: FastifyInstance, listen: ListenAddress, options: RunServerOptions = {}): Promise<void> {
  const { metrics } = options;
  if (metrics && metrics.port !== 0 && metrics.port === listen.port) {
    throw new Error(`METRICS_PORT (${metrics.port}) must differ from PORT: /metrics is kept off the public port`);
  }
  const metricsServer = metrics ? await createMetricsServer(app) : undefined;
  closeWithGrace({ delay: options.closeDelayMs ?? 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await metricsServer?.close();
  });
  await app.listen(listen);
  if (metricsServer && metrics) await metricsServer.listen(metrics);
}
