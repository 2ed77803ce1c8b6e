import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import type IORedis from 'ioredis';
import type { Pool } from 'pg';
import { ConfigError, databasePoolOptions } from '@gateway/config';
import { createPool, type DatabaseApp } from '@gateway/db';
import { postgresRequirement, redisRequirement, ServerRequirementError, ServerRequirements } from './boot-checks/server-requirements';
import { createMetricsServer } from './metrics-server';
import { createApiRedis } from './redis-client';
import { closeAfterRequests } from './requests-in-flight';

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
  const refusals: ErrorClass[] = [ConfigError, ServerRequirementError, ...(app.refusals ?? [])];
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

/** What a public API app's settings hold for its process: the pool's, Redis's and the two listen addresses. */
export type ApiAppSettings = Parameters<typeof databasePoolOptions>[0] & {
  REDIS_URL: string;
  HOST: string;
  PORT: number;
  METRICS_HOST: string;
  METRICS_PORT: number;
};

export interface ApiAppProcess<Config extends { raw: ApiAppSettings }> extends Omit<AppProcess<Config>, 'name' | 'build'> {
  name: DatabaseApp;
  /**
   * Whether the app keeps BullMQ queues in its Redis: then Redis must be a supported version with
   * maxmemory-policy noeviction (SERVER_REQUIREMENTS), checked at boot and in /readyz. An app whose
   * Redis holds only counters and caches that may be lost (wallet-control) says false.
   */
  queuesInRedis: boolean;
  /** Builds the app on what the process holds. */
  build(config: Config, held: { pool: Pool; redis: IORedis }): Promise<FastifyInstance>;
}

/**
 * A public API app's process (runApp) holding a pool logged in as the app's role and the API Redis
 * client; both are closed after the listener and after the requests still running (their clients
 * may be gone) have finished. `/metrics` on its own port (METRICS_PORT), never the public one.
 */
export function runApiApp<Config extends { raw: ApiAppSettings }>({ name, build, queuesInRedis, ...process }: ApiAppProcess<Config>): void {
  runApp({
    ...process,
    name,
    async build(config) {
      const { raw } = config;
      const pool = createPool({ ...databasePoolOptions(raw, name), app: name });
      const requirements = new ServerRequirements([postgresRequirement(pool), ...(queuesInRedis ? [redisRequirement(raw.REDIS_URL)] : [])]);
      await requirements.atBoot();
      const redis = createApiRedis(raw.REDIS_URL);
      // Without a listener a Redis outage would end the process; requests fail open meanwhile.
      redis.on('error', () => undefined);
      const app = await build(config, { pool, redis });
      requirements.attachTo(app);
      closeAfterRequests(app, async () => {
        await pool.end();
        redis.disconnect();
      });
      return { app, listen: { host: raw.HOST, port: raw.PORT }, metrics: { host: raw.METRICS_HOST, port: raw.METRICS_PORT } };
    },
  });
}
