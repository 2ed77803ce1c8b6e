import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '@gateway/config';
import { createMetricsServer } from './metrics-server';

export interface ListenAddress {
  host: string;
  port: number;
}

/** An app built for its process, and where and how it runs. */
export interface RunnableApp {
  app: FastifyInstance;
  /** The public address of an API app; the private /healthz, /readyz and /metrics address of a worker. */
  listen: ListenAddress;
  /**
   * Where an API app's `/metrics`, `/healthz` and `/readyz` are served apart from the public port
   * (METRICS_HOST / METRICS_PORT). Left out by a worker: its server is private already and serves `/metrics` itself.
   */
  metrics?: ListenAddress;
  /** How long a close may take before the process exits anyway (default 10 s). */
  closeDelayMs?: number;
  /** Begins the app's own work once it listens (the chain watcher's loop). */
  onListening?: () => void;
}

type ErrorClass = abstract new (...args: never[]) => Error;

export interface AppProcess<Config> {
  /** The app's folder name under apps/: the prefix of a refused boot's message. */
  name: string;
  loadConfig(): Config;
  /** Opens what the process holds (pool, Redis), builds the app on it and says where it listens. */
  build(config: Config): Promise<RunnableApp>;
  /** Errors besides ConfigError whose message alone says why the app refused to boot. */
  refusals?: ErrorClass[];
}

/**
 * An app's process: loads its configuration, builds it, listens (and, with `metrics`, starts the
 * metrics server beside it), and on SIGTERM/SIGINT stops taking connections, lets requests in flight
 * finish and runs the app's onClose hooks (pools, queues) before exiting; the metrics server closes
 * last. A stuck close is cut off. A refused boot prints `<name>: <why>` and exits with 1.
 */
export function runApp<Config>(app: AppProcess<Config>): void {
  const refusals: ErrorClass[] = [ConfigError, ...(app.refusals ?? [])];
  start(app).catch((error: Error) => {
    console.error(refusals.some((refusal) => error instanceof refusal) ? `${app.name}: ${error.message}` : error);
    process.exit(1);
  });
}

async function start<Config>({ loadConfig, build }: AppProcess<Config>): Promise<void> {
  const { app, listen, metrics, closeDelayMs = 10_000, onListening } = await build(loadConfig());
  if (metrics && metrics.port !== 0 && metrics.port === listen.port) {
    throw new Error(`METRICS_PORT (${metrics.port}) must differ from PORT: /metrics is kept off the public port`);
  }
  const metricsServer = metrics ? await createMetricsServer(app) : undefined;
  closeWithGrace({ delay: closeDelayMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await metricsServer?.close();
  });
  await app.listen(listen);
  if (metricsServer && metrics) await metricsServer.listen(metrics);
  onListening?.();
}
