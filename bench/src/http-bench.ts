// HTTP benchmark of the gateway's two hot endpoints against reference servers, all in one run on
// one machine so the ratios mean something: absolute req/s depend on the box, the share of a
// bare "Fastify + one INSERT" server does not (much). `pnpm bench`; results in bench/results/http.json.
// The apps run from their TypeScript sources; BENCH_RUNTIME=dist (`bench:dist`, after `pnpm build`)
// runs the compiled dist/ as the images do, with results in bench/results/http-dist.json.
// BENCH_SMOKE=1: 1 s per scenario and no warm-up, 10 connections, Process Payment over 20 wallets.
// BENCH_SCENARIOS=create-wallet-new,process-payment measures only those (the one-INSERT baseline
// always, the ratios need it), to compare before and after in short interleaved runs;
// BENCH_APP_NODE_ARGS adds Node arguments to the two apps (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
// BENCH_COMMIT_DELAY_US=3000 makes PostgreSQL wait that long before each WAL flush (commit_delay,
// set with ALTER SYSTEM for the run and reset after it: it needs a superuser DATABASE_URL): a disk
// whose flush takes milliseconds, as networked cloud volumes do, where a local SSD's takes ~0.1 ms.
// The one-INSERT baseline commits every request; the gateway commits a batch at a time.
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { appNodeArguments } from '@gateway/config';
import { createPool, migrate } from '@gateway/db';
import { apiAppEnvironments, newBenchRun, removeBenchRun, appCommand, benchRuntime, residentMb, describeMachine } from './bench-apps';
import { stopProcess } from '@gateway/testkit';
import { benchInt, printMarkdownTable, resultsFile, writeResults } from './bench-mode';
import { assertRunning, runBench, startService, type Service } from './bench-services';

const RUNTIME = benchRuntime();
const RESULTS_FILE = resultsFile(RUNTIME === 'dist' ? 'http-dist.json' : 'http.json');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = benchInt('BENCH_CONNECTIONS', 50, 10);
const SECONDS = benchInt('BENCH_SECONDS', 10, 1);
const WARMUP_SECONDS = benchInt('BENCH_WARMUP_SECONDS', 2, 0, 0);
const P99_TARGET_MS = 20;
const MAX_RSS_MB = 150;
const PAYMENT_WALLETS = benchInt('BENCH_PAYMENT_WALLETS', 500, 20);
const PAYOUT_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const SHOP_CALLBACK = 'https%3A%2F%2Fshop.io%2Fipn%3Forder%3D';
const SCENARIOS = process.env.BENCH_SCENARIOS ? new Set(process.env.BENCH_SCENARIOS.split(',')) : undefined;
const APP_NODE_ARGS = process.env.BENCH_APP_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const COMMIT_DELAY_US = benchInt('BENCH_COMMIT_DELAY_US', 0, 0, 0);

interface Scenario {
  id: string;
  title: string;
  path: string;
  /** Further paths: each connection cycles through `path` and these, in order. */
  morePaths?: string[];
  seconds: number;
  headers?: Record<string, string>;
  /** Replace `[<id>]` in the path with a unique id per request. */
  uniqueIds?: boolean;
  /** Required share of the one-INSERT baseline's req/s. */
  target?: number;
}

interface Measurement {
  id: string;
  title: string;
  seconds: number;
  requestsPerSecond: number;
  requests: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  /** CPU time per request: the server process, all PostgreSQL processes, and the load generator (this process). */
  cpuMicrosPerRequest: { server: number; postgres: number; loadGenerator: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  shareOfInsertBaseline?: number;
  target?: number;
  verdict?: string;
}

const run = newBenchRun();
const { schema } = run;
const admin = createPool({ connectionString: DATABASE_URL, schema, max: 2, applicationName: 'bench' });

async function main(): Promise<void> {
  const machine = await describeMachine(admin);
  console.log(
    `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, node ${machine.node}, ${machine.postgres}\n` +
      `load average at start: ${machine.loadAverage.join(' ')}   connections: ${CONNECTIONS}   ` +
      `${SECONDS} s per scenario after ${WARMUP_SECONDS} s warm-up   schema: ${schema}   apps from: ${RUNTIME}` +
      `${COMMIT_DELAY_US > 0 ? `   commit_delay: ${COMMIT_DELAY_US} µs` : ''}\n`,
  );
  await migrate(admin, schema);
  if (COMMIT_DELAY_US > 0) await setCommitDelay(COMMIT_DELAY_US);
  const env = { baseline: { DATABASE_URL, DATABASE_SCHEMA: schema }, ...apiAppEnvironments(DATABASE_URL, run) };
  const measurements: Measurement[] = [];

  // The reference server always runs from source: it is the bench's own, never built.
  const baseline = await startService('baseline', [...appNodeArguments('bench', 'source'), 'bench/src/baseline-server.ts'], env.baseline);
  if (wanted('baseline-bare')) {
    measurements.push(await measure(baseline, { id: 'baseline-bare', title: 'baseline: bare Fastify', path: '/bare', seconds: SECONDS }));
  }
  const insert = await measure(baseline, {
    id: 'baseline-insert',
    title: 'baseline: Fastify + one INSERT',
    path: '/insert',
    seconds: SECONDS,
  });
  measurements.push(insert);
  await stopProcess(baseline.child);

  const [wallets, payments] = await Promise.all([
    startService('wallet-control', [...APP_NODE_ARGS, ...appCommand('wallet-control', RUNTIME)], env.walletControl),
    startService('payment-redirect', [...APP_NODE_ARGS, ...appCommand('payment-redirect', RUNTIME)], env.paymentRedirect),
  ]);
  // A cold start: every address is derived on the spot, nothing is prepared ahead.
  await measureIfWanted(measurements, wallets, {
    id: 'create-wallet-new',
    title: 'Create Wallet, new wallets',
    path: `/control/wallet.php?address=${PAYOUT_ADDRESS}&callback=${SHOP_CALLBACK}[<id>]`,
    seconds: SECONDS,
    uniqueIds: true,
    // Issue 22: at least 0.64× the one-INSERT baseline (aim 0.8×).
    target: 0.64,
  });
  await measureIfWanted(measurements, wallets, {
    id: 'create-wallet-repeat',
    title: 'Create Wallet, the same pair again',
    path: `/control/wallet.php?address=${PAYOUT_ADDRESS}&callback=${SHOP_CALLBACK}repeat`,
    seconds: SECONDS,
    target: 1.5,
  });

  // Each order has its own wallet (spec 4.1), so real payments spread over many wallets; the
  // one-wallet run is the worst case, every foreign-key check locking the same wallets row.
  const paymentPath = (addressIn: string) =>
    `/process-payment.php?address=${encodeURIComponent(addressIn)}&amount=25&provider=moonpay&email=jane%40shop.io&currency=USD`;
  const paymentScenarios = ['process-payment', 'process-payment-one-wallet'].filter(wanted);
  const paymentWallets = await Promise.all(
    Array.from({ length: paymentScenarios.length > 0 ? PAYMENT_WALLETS : 0 }, (_, i) => createWallet(wallets.url, `payment-${i}`)),
  );
  const [firstPaymentPath = '', ...morePaymentPaths] = paymentWallets.map(paymentPath);
  await measureIfWanted(measurements, payments, {
    id: 'process-payment',
    title: `Process Payment, ${PAYMENT_WALLETS} wallets`,
    path: firstPaymentPath,
    morePaths: morePaymentPaths,
    headers: { accept: 'application/json' },
    seconds: SECONDS,
    // Issue 22: back to the 0.74× measured when it was filed, before the status look-ups of issue 23.
    target: 0.74,
  });
  await measureIfWanted(measurements, payments, {
    id: 'process-payment-one-wallet',
    title: 'Process Payment, one wallet',
    path: firstPaymentPath,
    headers: { accept: 'application/json' },
    seconds: SECONDS,
  });
  const memory = { 'wallet-control': residentMb(wallets.child.pid), 'payment-redirect': residentMb(payments.child.pid) };

  for (const measurement of measurements) judge(measurement, insert.requestsPerSecond);
  printTable(measurements);
  console.log(
    `\nresident memory after the run: ${Object.entries(memory)
      .map(([name, mb]) => `${name} ${mb} MB${mb <= MAX_RSS_MB ? '' : ` (over ${MAX_RSS_MB} MB)`}`)
      .join(', ')} (target ≤ ${MAX_RSS_MB} MB each)`,
  );

  const report = {
    finishedAt: new Date().toISOString(),
    machine,
    settings: {
      connections: CONNECTIONS,
      seconds: SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      logLevel: 'info',
      p99TargetMs: P99_TARGET_MS,
      runtime: RUNTIME,
      commitDelayMicros: COMMIT_DELAY_US,
    },
    residentMemoryMb: memory,
    scenarios: measurements,
  };
  writeResults(RESULTS_FILE, report);
}

function wanted(id: string): boolean {
  return SCENARIOS === undefined || SCENARIOS.has(id);
}

async function measureIfWanted(measurements: Measurement[], service: Service, scenario: Scenario): Promise<void> {
  if (wanted(scenario.id)) measurements.push(await measure(service, scenario));
}

// /proc/<pid>/stat counts CPU time in clock ticks (USER_HZ, 100 per second on Linux).
const MICROS_PER_TICK = 10_000;

/** User + system CPU time of a process so far, in µs. */
function processCpuMicros(pid: number | undefined): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * MICROS_PER_TICK;
  } catch {
    return 0;
  }
}

/** CPU time of every PostgreSQL process on the machine (server and backends), in µs: the database's share of the work. */
function postgresCpuMicros(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += processCpuMicros(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

async function measure(service: Service, scenario: Scenario): Promise<Measurement> {
  const options = {
    url: `${service.url}${scenario.path}`,
    connections: CONNECTIONS,
    headers: scenario.headers,
    idReplacement: scenario.uniqueIds ?? false,
    ...(scenario.morePaths ? { requests: [scenario.path, ...scenario.morePaths].map((path) => ({ method: 'GET' as const, path })) } : {}),
  };
  process.stdout.write(`${scenario.title}: warming up ${WARMUP_SECONDS} s, measuring ${scenario.seconds} s … `);
  if (WARMUP_SECONDS > 0) await autocannon({ ...options, duration: WARMUP_SECONDS });
  const cpuBefore = { server: processCpuMicros(service.child.pid), postgres: postgresCpuMicros(), loadGenerator: process.cpuUsage() };
  const result = await autocannon({ ...options, duration: scenario.seconds });
  assertRunning(service);
  const ownCpu = process.cpuUsage(cpuBefore.loadGenerator);
  const perRequest = (micros: number) => Math.round(micros / Math.max(result.requests.total, 1));
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]));
  const measurement: Measurement = {
    id: scenario.id,
    title: scenario.title,
    seconds: scenario.seconds,
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    latencyMs: {
      mean: result.latency.average,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    cpuMicrosPerRequest: {
      server: perRequest(processCpuMicros(service.child.pid) - cpuBefore.server),
      postgres: perRequest(postgresCpuMicros() - cpuBefore.postgres),
      loadGenerator: perRequest(ownCpu.user + ownCpu.system),
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    target: scenario.target,
  };
  console.log(`${Math.round(measurement.requestsPerSecond)} req/s`);
  return measurement;
}

function judge(measurement: Measurement, insertBaseline: number): void {
  measurement.shareOfInsertBaseline = measurement.requestsPerSecond / insertBaseline;
  if (measurement.non2xx > 0 || measurement.errors > 0) {
    measurement.verdict = `ERRORS: ${measurement.non2xx} non-2xx ${JSON.stringify(measurement.statusCodes)}, ${measurement.errors} errors`;
  } else if (measurement.target === undefined) {
    measurement.verdict = 'ok, no errors';
  } else {
    const fast = measurement.shareOfInsertBaseline >= measurement.target && measurement.latencyMs.p99 < P99_TARGET_MS;
    measurement.verdict = fast ? 'PASS' : 'MISS';
  }
}

function printTable(measurements: Measurement[]): void {
  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'CPU µs/req: server + PostgreSQL + load gen',
    '% of one-INSERT baseline',
    'target',
    'verdict',
  ];
  const rows = measurements.map((m) => [
    m.title,
    String(Math.round(m.requestsPerSecond)),
    String(m.latencyMs.p50),
    String(m.latencyMs.p99),
    `${m.cpuMicrosPerRequest.server} + ${m.cpuMicrosPerRequest.postgres} + ${m.cpuMicrosPerRequest.loadGenerator}`,
    `${Math.round((m.shareOfInsertBaseline ?? 0) * 100)}%`,
    m.target === undefined ? '' : `≥ ${Math.round(m.target * 100)}%, p99 < ${P99_TARGET_MS} ms`,
    m.verdict ?? '',
  ]);
  printMarkdownTable(header, rows);
}

async function createWallet(walletControlUrl: string, order: string): Promise<string> {
  const response = await fetch(`${walletControlUrl}/control/wallet.php?address=${PAYOUT_ADDRESS}&callback=${SHOP_CALLBACK}${order}`);
  if (!response.ok) throw new Error(`Create Wallet for the payment scenario answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { address_in: string }).address_in;
}

/** PostgreSQL's commit_delay for every session, the new setting read by a reload; 0 resets it to the server's own. */
async function setCommitDelay(micros: number): Promise<void> {
  // ALTER SYSTEM takes no parameters; the value is an integer checked by benchInt.
  await admin.query(micros > 0 ? `ALTER SYSTEM SET commit_delay = ${micros}` : 'ALTER SYSTEM RESET commit_delay');
  await admin.query('SELECT pg_reload_conf()');
}

runBench(main, async () => {
  if (COMMIT_DELAY_US > 0) {
    await setCommitDelay(0).catch((error: Error) => console.error(`could not reset commit_delay: ${error.message}`));
  }
  await removeBenchRun(admin, run);
  await admin.end();
});
