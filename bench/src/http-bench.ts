// HTTP benchmark of the gateway's two hot endpoints against reference servers, all in one run on
// one machine so the ratios mean something: absolute req/s depend on the box, the share of a
// bare "Fastify + one INSERT" server does not (much). `pnpm bench`; results in bench/results/http.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { constants, cpus, loadavg, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import { english, generateMnemonic } from 'viem/accounts';
import { createPool, migrate } from '@gateway/db';
import { xpubFromMnemonic } from '@gateway/chain';

const ROOT = join(__dirname, '..', '..');
const RESULTS_FILE = join(__dirname, '..', 'results', 'http.json');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 50);
const SECONDS = envInt('BENCH_SECONDS', 10);
const WARMUP_SECONDS = 2;
// Deriving inline is the slow path; a short look sizes it.
const EMPTY_POOL_SECONDS = Math.min(5, SECONDS);
// Rate the pre-filled pool must feed through warm-up and measurement without running dry.
const ASSUMED_CREATE_WALLET_RATE = 4000;
const FILL_PROCESSES = 2;
const PAYMENT_WALLETS = 500;
const PAYOUT_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const SHOP_CALLBACK = 'https%3A%2F%2Fshop.io%2Fipn%3Forder%3D';

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
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  shareOfInsertBaseline?: number;
  target?: number;
  verdict?: string;
}

interface Service {
  name: string;
  url: string;
  child: ChildProcess;
}

const schema = `bench_${randomBytes(4).toString('hex')}`;
const admin = createPool({ connectionString: DATABASE_URL, schema, max: 2, applicationName: 'bench' });
const children = new Set<ChildProcess>();

async function main(): Promise<void> {
  const machine = await describeMachine();
  console.log(
    `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, node ${machine.node}, ${machine.postgres}\n` +
      `load average at start: ${machine.loadAverage.join(' ')}   connections: ${CONNECTIONS}   ` +
      `${SECONDS} s per scenario after ${WARMUP_SECONDS} s warm-up   schema: ${schema}\n`,
  );
  await migrate(admin, schema);
  const env = benchEnvironment();
  const measurements: Measurement[] = [];

  const baseline = await startService('baseline', 'bench/src/baseline-server.ts', env.baseline);
  measurements.push(await measure(baseline, { id: 'baseline-bare', title: 'baseline: bare Fastify', path: '/bare', seconds: SECONDS }));
  const insert = await measure(baseline, { id: 'baseline-insert', title: 'baseline: Fastify + one INSERT', path: '/insert', seconds: SECONDS });
  measurements.push(insert);
  await stop(baseline.child);

  const [wallets, payments] = await Promise.all([
    startService('wallet-control', 'apps/wallet-control/src/main.ts', env.walletControl),
    startService('payment-redirect', 'apps/payment-redirect/src/main.ts', env.paymentRedirect),
  ]);
  const newWalletPath = `/control/wallet.php?address=${PAYOUT_ADDRESS}&callback=${SHOP_CALLBACK}[<id>]`;

  // Create Wallet cannot outrun one INSERT, so the higher of the two is always enough.
  const fill = await fillAddressPool(
    Math.ceil(Math.max(ASSUMED_CREATE_WALLET_RATE, insert.requestsPerSecond) * (SECONDS + WARMUP_SECONDS)),
    env.walletControl,
  );
  console.log(
    `address pool: ${fill.filled} addresses filled by ${FILL_PROCESSES} processes in ${fill.seconds.toFixed(1)} s ` +
      `(${Math.round(fill.addressesPerSecond)} addresses/s)`,
  );
  const walletsBefore = await count('wallets');
  measurements.push(
    await measure(wallets, {
      id: 'create-wallet-new-pool-filled',
      title: 'Create Wallet, new, pool filled',
      path: newWalletPath,
      seconds: SECONDS,
      uniqueIds: true,
      target: 0.7,
    }),
  );
  const filledPoolRun = { walletsCreated: (await count('wallets')) - walletsBefore, poolLeft: await count('address_pool') };
  console.log(`  created ${filledPoolRun.walletsCreated} wallets, left ${filledPoolRun.poolLeft} addresses in the pool`);
  if (filledPoolRun.poolLeft === 0) console.warn('  the address pool ran dry: part of this scenario derived addresses inline');

  // The batch wallet-control has already claimed (100 at most) goes in the warm-up.
  await admin.query('DELETE FROM address_pool');
  measurements.push(
    await measure(wallets, {
      id: 'create-wallet-new-pool-empty',
      title: 'Create Wallet, new, pool empty',
      path: newWalletPath,
      seconds: EMPTY_POOL_SECONDS,
      uniqueIds: true,
    }),
  );
  measurements.push(
    await measure(wallets, {
      id: 'create-wallet-repeat',
      title: 'Create Wallet, same pair',
      path: `/control/wallet.php?address=${PAYOUT_ADDRESS}&callback=${SHOP_CALLBACK}repeat`,
      seconds: SECONDS,
    }),
  );

  // Each order has its own wallet (spec 4.1), so real payments spread over many wallets; the
  // one-wallet run is the worst case, every foreign-key check locking the same wallets row.
  const paymentPath = (addressIn: string) =>
    `/process-payment.php?address=${encodeURIComponent(addressIn)}&amount=25&provider=moonpay&email=jane%40shop.io&currency=USD`;
  const paymentWallets = await Promise.all(Array.from({ length: PAYMENT_WALLETS }, (_, i) => createWallet(wallets.url, `payment-${i}`)));
  const [firstPaymentPath = '', ...morePaymentPaths] = paymentWallets.map(paymentPath);
  measurements.push(
    await measure(payments, {
      id: 'process-payment',
      title: `Process Payment, ${PAYMENT_WALLETS} wallets`,
      path: firstPaymentPath,
      morePaths: morePaymentPaths,
      headers: { accept: 'application/json' },
      seconds: SECONDS,
      target: 0.8,
    }),
  );
  measurements.push(
    await measure(payments, {
      id: 'process-payment-one-wallet',
      title: 'Process Payment, one wallet',
      path: firstPaymentPath,
      headers: { accept: 'application/json' },
      seconds: SECONDS,
    }),
  );

  for (const measurement of measurements) judge(measurement, insert.requestsPerSecond);
  printTable(measurements);

  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  const report = {
    finishedAt: new Date().toISOString(),
    machine,
    settings: { connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, emptyPoolSeconds: EMPTY_POOL_SECONDS },
    addressPoolFill: { ...fill, processes: FILL_PROCESSES },
    filledPoolRun,
    scenarios: measurements,
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results: ${RESULTS_FILE}`);
}

/** Throw-away keys and settings close to production, except what a local bench needs. */
function benchEnvironment(): { baseline: Record<string, string>; walletControl: Record<string, string>; paymentRedirect: Record<string, string> } {
  const common = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DATABASE_URL,
    DATABASE_SCHEMA: schema,
    DATABASE_POOL_SIZE: '10',
    ADDRESS_IN_KEYS: `bench1:${randomBytes(32).toString('base64')}`,
    // One client IP sends everything; the limiter still runs, it just never says no.
    RATE_LIMIT_MAX: '1000000000',
  };
  return {
    baseline: { DATABASE_URL, DATABASE_SCHEMA: schema },
    walletControl: {
      ...common,
      HD_XPUB: xpubFromMnemonic(generateMnemonic(english)),
      CALLBACK_ALLOW_TEST_DOMAINS: 'false',
      // The bench fills the pool itself; a keeper deriving during a measurement would skew it.
      ADDRESS_POOL_TARGET: '0',
    },
    paymentRedirect: { ...common, SANDBOX_SIGNING_SECRET: randomBytes(32).toString('base64') },
  };
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
  await autocannon({ ...options, duration: WARMUP_SECONDS });
  const result = await autocannon({ ...options, duration: scenario.seconds });
  assertRunning(service);
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]));
  const measurement: Measurement = {
    id: scenario.id,
    title: scenario.title,
    seconds: scenario.seconds,
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    latencyMs: { mean: result.latency.average, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
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
    measurement.verdict = measurement.shareOfInsertBaseline >= measurement.target ? 'PASS' : 'MISS';
  }
}

function printTable(measurements: Measurement[]): void {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', '% of one-INSERT baseline', 'target', 'verdict'];
  const rows = measurements.map((m) => [
    m.title,
    String(Math.round(m.requestsPerSecond)),
    String(m.latencyMs.p50),
    String(m.latencyMs.p99),
    `${Math.round((m.shareOfInsertBaseline ?? 0) * 100)}%`,
    m.target === undefined ? '' : `≥ ${Math.round(m.target * 100)}%`,
    m.verdict ?? '',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(`\n${line(header)}\n${line(widths.map((width) => '-'.repeat(width)))}`);
  for (const row of rows) console.log(line(row));
}

/**
 * Runs the operator command `pool:fill` as parallel processes, one per core, each topping up to
 * its share: they start together on an empty pool, so together they add about `total`.
 */
async function fillAddressPool(total: number, env: Record<string, string>): Promise<{ requested: number; filled: number; seconds: number; addressesPerSecond: number }> {
  console.log(`filling the address pool with ${total} addresses (${FILL_PROCESSES} processes) …`);
  const share = String(Math.ceil(total / FILL_PROCESSES));
  const started = performance.now();
  await Promise.all(
    Array.from({ length: FILL_PROCESSES }, () => {
      const child = spawnTs('apps/wallet-control/src/fill-address-pool.ts', [share], env);
      return new Promise<void>((resolve, reject) =>
        child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`pool:fill exited with ${signal ?? code}`)))),
      );
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const filled = await count('address_pool');
  return { requested: total, filled, seconds, addressesPerSecond: filled / seconds };
}

async function createWallet(walletControlUrl: string, order: string): Promise<string> {
  const response = await fetch(`${walletControlUrl}/control/wallet.php?address=${PAYOUT_ADDRESS}&callback=${SHOP_CALLBACK}${order}`);
  if (!response.ok) throw new Error(`Create Wallet for the payment scenario answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { address_in: string }).address_in;
}

async function count(table: 'wallets' | 'address_pool'): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? 0;
}

async function describeMachine() {
  const { rows } = await admin.query<{ version: string }>("SELECT current_setting('server_version') AS version");
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    os: `${process.platform} ${release()}`,
    postgres: `PostgreSQL ${rows[0]?.version ?? 'unknown'}`,
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
  };
}

function spawnTs(entry: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function startService(name: string, entry: string, env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const service = { name, url: `http://127.0.0.1:${port}`, child: spawnTs(entry, [], { ...env, PORT: String(port) }) };
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

function assertRunning(service: Service): void {
  if (service.child.exitCode !== null || service.child.signalCode !== null) {
    throw new Error(`${service.name} exited (${service.child.signalCode ?? service.child.exitCode})`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  // The apps drain in-flight requests on SIGTERM; nothing is in flight once a scenario ends.
  const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}

let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map(stop));
    await admin
      .query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      .catch((error: Error) => console.error(`could not drop schema ${schema}: ${error.message}`));
    await admin.end();
  })();
  return cleaning;
}

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

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
