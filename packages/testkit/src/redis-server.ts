import { spawn, type ChildProcess } from 'node:child_process';
import IORedis from 'ioredis';
import { findFreePort } from './anvil';
import { sleep } from './wait-for';

export interface RunningRedis {
  url: string;
  port: number;
  /** A real FLUSHALL: safe here, this server is the test's alone. */
  flushAll(): Promise<void>;
  /** Kills the server (SIGKILL) and starts an empty one on the same port, as a restart of a Redis that keeps nothing on disk. */
  restart(options?: { downForMs?: number }): Promise<void>;
  /** Stops the server and resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;

export interface RedisServerOptions {
  /** maxmemory-policy: noeviction, as the gateway requires (SERVER_REQUIREMENTS), unless a test wants another. */
  maxmemoryPolicy?: string;
}

/**
 * A private redis-server (the machine's binary) on a free loopback port, without persistence.
 * The shared Redis on 127.0.0.1:6379 serves every test file at once, so a test that flushes or
 * restarts Redis, or needs other settings, needs a server of its own.
 */
export async function startRedisServer({ maxmemoryPolicy = 'noeviction' }: RedisServerOptions = {}): Promise<RunningRedis> {
  const port = await findFreePort();
  const launch = () => launchServer(port, maxmemoryPolicy);
  let child = await launch();
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    port,
    async flushAll() {
      const client = new IORedis(url, { maxRetriesPerRequest: 1 });
      try {
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
    async restart({ downForMs = 0 } = {}) {
      await kill(child, 'SIGKILL');
      if (downForMs > 0) await sleep(downForMs);
      child = await launch();
    },
    stop: () => kill(child, 'SIGTERM'),
  };
}

async function launchServer(port: number, maxmemoryPolicy: string): Promise<ChildProcess> {
  // biome-ignore format: one option a line
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning',
    '--maxmemory-policy', maxmemoryPolicy,
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let failure: string | undefined;
  child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
  child.once('error', (error) => (failure = `redis-server could not be started: ${error.message}`));
  child.once('exit', (code) => (failure ??= `redis-server exited (${code}) before it was ready: ${stderr.trim()}`));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await answersPing(port))) {
    if (failure !== undefined) throw new Error(failure);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not answer PING within ${READY_TIMEOUT_MS} ms`);
    }
    await sleep(50);
  }
  return child;
}

async function answersPing(port: number): Promise<boolean> {
  const client = new IORedis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
