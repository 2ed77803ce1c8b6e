import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { dirname } from 'node:path';
import type { Pool } from 'pg';
import { lockTable, waitForLockedStatement } from './table-lock';
import { sleep, waitFor } from './wait-for';

/** The processes started here: one that a failed test leaves running is killed by killStartedApps. */
const started = new Set<ChildProcess>();

/**
 * An app run as deployed (its main.ts, from its sources), its port read from the line it logs
 * ("listening at http://127.0.0.1:<port>"); `exited` resolves with its exit code.
 */
export function startAppProcess(main: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', main], {
    cwd: dirname(dirname(main)),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  child.once('exit', () => started.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
      if (match) {
        clearInterval(timer);
        resolve(Number(match[1]));
      }
    }, 50);
    void exited.then(() => {
      clearInterval(timer);
      reject(new Error(`exited early: ${stderr}`));
    });
  });
  return { child, exited, port, output: () => ({ stdout, stderr }) };
}

/**
 * The log lines at warn or above (pino levels 40+) an app process wrote from its "shutting down" on
 * (a warning at boot, such as the sandbox's, is expected); throws when it never logged the shutdown.
 */
export function problemsSinceShutdown(stdout: string): string[] {
  const shutdown = stdout.indexOf('"msg":"shutting down"');
  if (shutdown === -1) throw new Error('the app never logged "shutting down"');
  return stdout
    .slice(shutdown)
    .split('\n')
    .filter((line) => /"level":(4|5|6)0/.test(line));
}

/** Waits until a spawned app answers `${url}/readyz` with a 2xx; fails at once if the process exits first. */
export async function waitForReadyz(name: string, url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const outcome = await waitFor(
    `${name} to answer ${url}/readyz`,
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) return 'exited';
      return (await fetch(`${url}/readyz`)).ok ? 'ready' : undefined;
    },
    timeoutMs,
    200,
  );
  if (outcome === 'exited') throw new Error(`${name} exited (${child.signalCode ?? child.exitCode}) before it was ready`);
}

/** SIGTERM, then SIGKILL if the process has not exited within `graceMs`; resolves once it has exited. */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const forceKill = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(forceKill);
}

/** Kills (SIGKILL) every app process startAppProcess started that is still running. */
export function killStartedApps(): void {
  for (const child of started) child.kill('SIGKILL');
}

/** GET on a connection of its own; `abort` closes it before the answer, as a client that gives up. */
export function getOnOwnConnection(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): { answered: Promise<number>; abort: () => void } {
  const sent = request({ host: '127.0.0.1', port, path, headers, agent: false });
  const answered = new Promise<number>((resolve, reject) => {
    sent.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    sent.on('error', reject);
  });
  sent.end();
  return { answered, abort: () => sent.destroy() };
}

export type AppProcess = ReturnType<typeof startAppProcess>;
export type SentRequest = ReturnType<typeof getOnOwnConnection>;

export interface SigtermWithInsertsHeldOptions {
  /** The app's main.ts, run as deployed on any free port. */
  main: string;
  env: Record<string, string>;
  /** The test schema's owner pool: it holds the lock and watches the app's sessions. */
  pool: Pool;
  /** The table whose inserts are held until after SIGTERM (lockTable). */
  table: string;
  /** The app's insert as pg_stat_activity shows it (a LIKE pattern), and its name for the timeout's message. */
  insert: { pattern: string; what: string };
  /** Sends the requests, each on a connection of its own. */
  send(port: number): Promise<SentRequest[]>;
  /** Whether the clients give up before SIGTERM (a load balancer's timeout): the listener closes, the handlers still run. */
  clientsGoAway: boolean;
}

/** An app process's settings for listening on loopback ports the system picks (read back from its log). */
export const ANY_LOOPBACK_PORTS = { HOST: '127.0.0.1', PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_PORT: '0' };

/**
 * A rolling deploy's SIGTERM with requests in flight: the app's inserts are held by a lock until 300 ms
 * after SIGTERM, so every request is still running when it comes. Gives the process and its requests.
 */
export async function sigtermWithInsertsHeld(
  options: SigtermWithInsertsHeldOptions,
): Promise<{ run: AppProcess; requests: SentRequest[] }> {
  const run = startAppProcess(options.main, { ...options.env, ...ANY_LOOPBACK_PORTS });
  const port = await run.port;
  const lock = await lockTable(options.pool, options.table);
  try {
    const requests = await options.send(port);
    await waitForLockedStatement(options.pool, options.insert.pattern, options.insert.what);
    // Lets the last requests' connections be accepted: one still in the listen backlog at SIGTERM was never in flight.
    await sleep(500);
    if (options.clientsGoAway) {
      for (const sent of requests) {
        sent.answered.catch(() => undefined);
        sent.abort();
      }
    }
    run.child.kill('SIGTERM');
    await sleep(300);
    return { run, requests };
  } finally {
    await lock.release();
  }
}
