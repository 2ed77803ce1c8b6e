// Cold start of the two API apps, from spawn to the first 200 of /healthz, and their resident
// memory at that moment: from TypeScript sources through tsx (development, tests, the local stack)
// and from the compiled dist/ with plain node (the images). Runs alternate between the two so both
// see the same machine. `pnpm build`, then `pnpm --filter @gateway/bench bench:cold-start`;
// results in bench/results/cold-start.json. BENCH_SMOKE=1: one start of each app from each runtime.
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import type { AppRuntime } from '@gateway/config';
import { createPool, migrate } from '@gateway/db';
import { apiAppEnvironments, newBenchRun, removeBenchRun, appCommand, residentMb, ROOT } from './bench-apps';
import { findFreePort, sleep } from '@gateway/testkit';
import { benchInt, printMarkdownTable, resultsFile, writeResults } from './bench-mode';

const RESULTS_FILE = resultsFile('cold-start.json');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = benchInt('BENCH_RUNS', 5, 1);
const READY_TIMEOUT_MS = 60_000;
const APPS = ['wallet-control', 'payment-redirect'] as const;
const RUNTIMES: AppRuntime[] = ['source', 'dist'];

interface Start {
  ms: number;
  rssMb: number;
}

const run = newBenchRun();
const { schema } = run;
const admin = createPool({ connectionString: DATABASE_URL, schema, max: 1, applicationName: 'bench' });

async function main(): Promise<void> {
  await migrate(admin, schema);
  const environments = apiAppEnvironments(DATABASE_URL, run);
  const env = { 'wallet-control': environments.walletControl, 'payment-redirect': environments.paymentRedirect };
  const starts = new Map<string, Start[]>();
  console.log(`${RUNS} cold starts of each app from each runtime, ${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(2)}`);
  for (let run = 0; run < RUNS; run += 1) {
    for (const app of APPS) {
      for (const runtime of RUNTIMES) {
        const start = await coldStart(appCommand(app, runtime), { ...env[app], LOG_LEVEL: 'warn' });
        const key = `${app} ${runtime}`;
        starts.set(key, [...(starts.get(key) ?? []), start]);
      }
    }
  }
  const results = [...starts].map(([key, runs]) => {
    const [app = '', runtime = ''] = key.split(' ');
    const ms = runs.map((start) => start.ms);
    return {
      app,
      runtime,
      runsMs: ms,
      medianMs: median(ms),
      minMs: Math.min(...ms),
      maxMs: Math.max(...ms),
      medianRssMb: median(runs.map((start) => start.rssMb)),
    };
  });
  printTable(results);
  const report = {
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version },
    settings: { runs: RUNS },
    results,
  };
  writeResults(RESULTS_FILE, report);
}

/** Spawns the app, waits for /healthz to answer 200, reads its RSS, stops it. */
async function coldStart(command: string[], env: Record<string, string>): Promise<Start> {
  const port = await findFreePort();
  const metricsPort = await findFreePort();
  const began = performance.now();
  const child = spawn(process.execPath, command, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), METRICS_PORT: String(metricsPort) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    while (performance.now() - began < READY_TIMEOUT_MS) {
      if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return { ms: Math.round(performance.now() - began), rssMb: residentMb(child.pid) };
      await sleep(5);
    }
    throw new Error(`${command.join(' ')}: no 200 from /healthz within ${READY_TIMEOUT_MS} ms`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : Math.round(((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2);
}

function printTable(
  results: { app: string; runtime: string; medianMs: number; minMs: number; maxMs: number; medianRssMb: number }[],
): void {
  const header = ['app', 'runs from', 'spawn → /healthz 200, median ms', 'min–max ms', 'RSS at ready, MB'];
  const rows = results.map((r) => [
    r.app,
    r.runtime === 'dist' ? 'dist (node)' : 'source (tsx)',
    String(r.medianMs),
    `${r.minMs}–${r.maxMs}`,
    String(r.medianRssMb),
  ]);
  printMarkdownTable(header, rows);
}

main()
  .catch((error: Error) => {
    console.error(`bench failed: ${error.message}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await removeBenchRun(admin, run);
    await admin.end();
  });
