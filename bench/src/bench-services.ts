// How the benches start the apps they measure and stop them: no app may outlive its bench.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { findFreePort } from '@gateway/testkit';
import { ROOT } from './bench-apps';

export interface Service {
  name: string;
  url: string;
  child: ChildProcess;
}

/** Every process a bench started that has not exited yet. */
export const children = new Set<ChildProcess>();

/** Starts Node with `command` as the local stack (source) or the images (dist) start it. */
export function spawnApp(command: string[], env: Record<string, string>, stdout: 'inherit' | 'pipe' = 'inherit'): ChildProcess {
  const child = spawn(process.execPath, command, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Starts an app on `port` (a free one by default) and waits until its /readyz answers 200. */
export async function startService(name: string, command: string[], env: Record<string, string>, port?: number): Promise<Service> {
  port ??= await findFreePort();
  const metricsPort = await findFreePort();
  const service = {
    name,
    url: `http://127.0.0.1:${port}`,
    child: spawnApp(command, { ...env, PORT: String(port), METRICS_PORT: String(metricsPort) }),
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    assertRunning(service);
    try {
      if ((await fetch(`${service.url}/readyz`)).ok) return service;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${name} did not become ready at ${service.url}`);
}

export function assertRunning(service: Service): void {
  if (service.child.exitCode !== null || service.child.signalCode !== null) {
    throw new Error(`${service.name} exited (${service.child.signalCode ?? service.child.exitCode})`);
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  // The apps drain in-flight requests on SIGTERM; nothing is in flight once a scenario ends.
  const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}

/**
 * Runs a bench's `main`, then stops its apps and calls `release` (its schema, its Redis keys …),
 * also on SIGINT or SIGTERM; a failure is printed and sets exit code 1.
 */
export function runBench(main: () => Promise<void>, release: () => Promise<void>): void {
  let cleaning: Promise<void> | undefined;
  const cleanUp = (): Promise<void> => {
    cleaning ??= (async () => {
      await Promise.all([...children].map(stop));
      await release();
    })();
    return cleaning;
  };
  // Last resort when the bench itself dies: no server may outlive it.
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanUp().then(() => process.exit(128 + constants.signals[signal])));
  }
  main()
    .catch((error: Error) => {
      // Once a signal has started the clean-up, children exiting under it are no failure to report.
      if (cleaning) return;
      console.error(`bench failed: ${error.message}`);
      process.exitCode = 1;
    })
    .finally(cleanUp);
}
