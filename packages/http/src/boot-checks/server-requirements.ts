import type { FastifyInstance } from 'fastify';
import IORedis from 'ioredis';
import type { Pool } from 'pg';
import { Gauge } from 'prom-client';
import { postgresVersionProblem, redisServerProblems } from '@gateway/domain';

/** A server the process requires something of (SERVER_REQUIREMENTS in @gateway/domain). */
export interface ServerRequirement {
  server: 'postgres' | 'redis';
  /** What is wrong with the server, each naming the setting and its fix (empty: nothing); rejects when it does not answer. */
  problems(): Promise<string[]>;
  close(): Promise<void>;
}

/** A server the app runs on answers, and is unfit for it: the process refuses to start. */
export class ServerRequirementError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'ServerRequirementError';
  }
}

const ANSWER_WITHIN_MS = 3_000;

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ANSWER_WITHIN_MS} ms`)), ANSWER_WITHIN_MS);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The PostgreSQL server's version (`SHOW server_version`, which every role may read), through the app's own pool. */
export function postgresRequirement(pool: Pool): ServerRequirement {
  return {
    server: 'postgres',
    async problems() {
      const { rows } = await within(pool.query<{ server_version: string }>('SHOW server_version'), 'PostgreSQL');
      const problem = postgresVersionProblem(rows[0]?.server_version ?? '');
      return problem === undefined ? [] : [problem];
    },
    close: async () => undefined,
  };
}

/**
 * The Redis server's version and maxmemory-policy, from `INFO server` and `INFO memory` as the app's
 * own Redis user (REDIS_URL): INFO is in every app's ACL rules already (ioredis's ready check and
 * BullMQ's own version check ask it), CONFIG GET is not and need not be. A connection of its own,
 * closed with the app.
 */
export function redisRequirement(url: string): ServerRequirement {
  // Commands fail at once while it is not connected (it reconnects by itself): a readiness probe
  // never waits on a Redis that is away, which payment-redirect's readiness does not depend on.
  const client = new IORedis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: ANSWER_WITHIN_MS,
  });
  client.on('error', () => undefined);
  return {
    server: 'redis',
    async problems() {
      // The first call (at boot) waits for the connection.
      if (client.status === 'wait') await within(client.connect(), 'Redis');
      const [server, memory] = await within(Promise.all([client.info('server'), client.info('memory')]), 'Redis');
      return redisServerProblems(`${server}\n${memory}`);
    },
    async close() {
      client.disconnect();
    },
  };
}

/**
 * What the process requires of its servers, judged twice: at boot, where a server answers and is
 * unfit the process refuses to start (a setting an operator must change, like a bad environment
 * variable: restarting cannot fix it); and in `/readyz` (check `servers`), so a server that did not
 * answer at boot, or was changed since (CONFIG SET, a failover to a replica set up otherwise), makes
 * the app not ready and says why in one log line, and `server_requirements_met{server}` falls to 0.
 * A server that does not answer is not judged here: its own readiness check reports that.
 */
export class ServerRequirements {
  private readonly logged = new Map<string, string>();

  constructor(private readonly requirements: ServerRequirement[]) {}

  /** Refuses (ServerRequirementError) when a server answers and is unfit; a server that does not answer is judged later. */
  async atBoot(): Promise<void> {
    const problems: string[] = [];
    for (const requirement of this.requirements) {
      problems.push(...(await requirement.problems().catch(() => [])));
    }
    if (problems.length > 0) {
      await this.close();
      throw new ServerRequirementError(problems);
    }
  }

  /** Adds the `servers` readiness check and its gauge to the app, and closes the connections with it. */
  attachTo(app: FastifyInstance): void {
    const met = new Gauge({
      name: 'server_requirements_met',
      help: 'Whether the server (postgres, redis) meets what the gateway requires of it (version, Redis maxmemory-policy); 0 makes /readyz fail',
      labelNames: ['server'] as const,
      registers: [app.metrics],
    });
    for (const { server } of this.requirements) met.set({ server }, 1);
    app.readinessChecks.servers = async () => {
      const judged = await Promise.all(
        this.requirements.map(async ({ server, problems }) => {
          const found = await problems().catch(() => undefined);
          if (found === undefined) return true;
          met.set({ server }, found.length === 0 ? 1 : 0);
          this.logOnce(app, server, found);
          return found.length === 0;
        }),
      );
      return judged.every(Boolean);
    };
    app.addHook('onClose', () => this.close());
  }

  private logOnce(app: FastifyInstance, server: string, problems: string[]): void {
    const text = problems.join('; ');
    if (this.logged.get(server) === text) return;
    this.logged.set(server, text);
    if (text !== '') app.log.error({ server }, `${text}; not ready`);
    else app.log.info({ server }, 'server meets the requirements again; ready');
  }

  private async close(): Promise<void> {
    await Promise.all(this.requirements.map((requirement) => requirement.close()));
  }
}
