// Settlement throughput: deposits forwarded per minute by ONE settlement-worker process (src/main.ts,
// as production runs it, at its default WORKER_CONCURRENCY and POLL_INTERVAL_MS) with CONFIRMATIONS=64,
// on anvil mining a block every BENCH_BLOCK_TIME seconds. Each of BENCH_DEPOSITS deposits goes into a
// wallet of its own (so no two share a temporary key) and is recorded as final, as the chain watcher
// leaves it; the clock starts when their jobs are queued. Every run is appended to
// bench/results/settlement.json with the commit and the working-tree state it measured, so a run
// before a change and one after it sit side by side.
// `pnpm --filter @gateway/bench bench:settlement` (BENCH_LABEL names the run, e.g. before / after).
// BENCH_SMOKE=1: 4 deposits, 4 confirmations, a block every 0.05 s (the worker also waits for anvil's
// `finalized` tag, 64 blocks behind the head: 16 s at the full run's 0.25 s).
// BENCH_SMOKE=1: 4 deposits, 4 confirmations.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Pool } from 'pg';
import { createPublicClient, http, parseEventLogs, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { createPool, migrate } from '@gateway/db';
import { defineLocalChain, deployTestUsdc, mintTestUsdc, usdcAbi, PUBLIC_TEST_MNEMONIC } from '@gateway/chain';
import { enqueueSettlements, openSettlementQueue } from '@gateway/queue';
import { seedDeposit, seedWallet, sqlExpression } from '@gateway/app-testkit';
import { anvilAccounts, deleteRedisPrefix, findFreePort, startAnvil, type RunningAnvil, sleep, waitForReadyz } from '@gateway/testkit';
import { benchInt, benchSetting, resultsFile } from './bench-mode';

const RESULTS_FILE = resultsFile('settlement.json');
const REPO_DIR = resolve(__dirname, '..', '..');
const WORKER_DIR = join(REPO_DIR, 'apps', 'settlement-worker');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DEPOSITS = benchInt('BENCH_DEPOSITS', 40, 4);
const CONFIRMATIONS = benchInt('BENCH_CONFIRMATIONS', 64, 4);
const BLOCK_TIME_SECONDS = Number(benchSetting('BENCH_BLOCK_TIME', '0.25', '0.05'));
const TIMEOUT_MS = benchInt('BENCH_TIMEOUT_MS', 20 * 60_000, 60_000);
const LABEL = process.env.BENCH_LABEL ?? 'unlabelled';
const USDC = 1_000_000n;
const DEPOSIT_AMOUNT = 10n * USDC;
// The first ten children of the test mnemonic are anvil's funded accounts; a temporary wallet must hold no ether.
const FIRST_HD_INDEX = 1_000;
const SAMPLE_MS = 200;

interface Run {
  label: string;
  measuredAt: string;
  gitHead: string;
  /** Files the working tree changed against gitHead when this ran (other work in progress included). */
  workingTreeChanges: string[];
  machine: { cpus: number; cpuModel?: string; loadAverage: number[]; node: string };
  setup: {
    deposits: number;
    confirmations: number;
    blockTimeSeconds: number;
    workerConcurrency: string;
    pollIntervalMs: string;
  };
  /** Seconds from queueing the jobs until the last deposit was forwarded (its callback written). */
  allForwardedSeconds: number;
  depositsForwardedPerMinute: number;
  /** Seconds until every leg of every deposit (merchant, platform fee) was confirmed. */
  allLegsConfirmedSeconds: number;
  depositsFullyPaidPerMinute: number;
  forwardedLatencySeconds: { p50: number; p95: number; max: number };
}

async function main(): Promise<void> {
  const schema = `bench_settle_${randomBytes(4).toString('hex')}`;
  const prefix = `bench-settle-${randomUUID()}`;
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: 4, applicationName: 'settlement-bench' });
  const queue = openSettlementQueue({ url: REDIS_URL, prefix });
  let anvil: RunningAnvil | undefined;
  let worker: ChildProcess | undefined;
  try {
    await migrate(pool, schema);
    anvil = await startAnvil({ blockTime: BLOCK_TIME_SECONDS });
    const token = await deployTestUsdc({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, deployerKey: anvilAccounts[0].privateKey });
    const depositIds = await makeDeposits(pool, anvil, token);
    console.log(`${DEPOSITS} final deposits of ${DEPOSIT_AMOUNT / USDC} USDC in ${DEPOSITS} wallets (schema ${schema})`);

    const metricsPort = await findFreePort();
    const env = workerEnv({ anvil, token, schema, prefix, metricsPort });
    worker = spawnWorker(env);
    await waitForReadyz('the settlement worker', `http://127.0.0.1:${metricsPort}`, worker);

    const [{ t0 }] = (await pool.query<{ t0: Date }>('SELECT clock_timestamp() AS t0')).rows as [{ t0: Date }];
    await enqueueSettlements(queue, depositIds);
    await waitForEveryLegConfirmed(pool, worker);
    const run = await measure(pool, t0, env);
    await checkEveryWalletEmptied(anvil, token, pool);
    const runs = saveRun(run);
    printTable(runs);
  } finally {
    if (worker) await stopWorker(worker);
    await queue.close();
    // Every queue of the worker under this prefix, not only the settlement queue.
    await deleteRedisPrefix(prefix, REDIS_URL).catch(() => undefined);
    await anvil?.stop();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pool.end();
  }
}

async function makeDeposits(pool: Pool, anvil: RunningAnvil, token: Address): Promise<string[]> {
  const rpc = publicClient(anvil);
  const ids: string[] = [];
  for (let i = 0; i < DEPOSITS; i += 1) {
    const hdIndex = FIRST_HD_INDEX + i;
    const address = mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: hdIndex }).address;
    const payout = privateKeyToAccount(generatePrivateKey()).address;
    const wallet = await seedWallet(pool, {
      hdIndex,
      polygonAddress: address,
      addressIn: `bench-${hdIndex}`,
      payoutAddress: payout,
      // A callback path per wallet: each has its own payout address, and a callback belongs to one.
      callbackUrl: `https://shop.example/ipn/${hdIndex}?order=${hdIndex}`,
    });
    const txHash = await mintTestUsdc({
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      token,
      ownerKey: anvilAccounts[0].privateKey,
      to: address,
      amount: DEPOSIT_AMOUNT,
    });
    const receipt = await rpc.getTransactionReceipt({ hash: txHash });
    const [transfer] = parseEventLogs({ abi: usdcAbi, eventName: 'Transfer', logs: receipt.logs });
    const deposit = await seedDeposit(pool, {
      chainId: anvil.chainId,
      txHash,
      logIndex: transfer!.logIndex,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      walletId: wallet.id,
      fromAddress: transfer!.args.from,
      amount: DEPOSIT_AMOUNT,
      status: 'final',
      finalAt: sqlExpression('now()'),
    });
    ids.push(deposit.id);
  }
  return ids;
}

function workerEnv(options: {
  anvil: RunningAnvil;
  token: Address;
  schema: string;
  prefix: string;
  metricsPort: number;
}): Record<string, string> {
  // Only what has no default, or must point at this run's chain, database and Redis: concurrency,
  // polling, pool size and lock times are the worker's defaults.
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL,
    DATABASE_SCHEMA: options.schema,
    REDIS_URL,
    REDIS_PREFIX: options.prefix,
    CHAIN_RPC_URL: options.anvil.rpcUrl,
    CHAIN_ID: String(options.anvil.chainId),
    USDC_TOKEN_ADDRESS: options.token,
    CONFIRMATIONS: String(CONFIRMATIONS),
    SETTLEMENT_MNEMONIC: PUBLIC_TEST_MNEMONIC,
    RELAYER_PRIVATE_KEY: anvilAccounts[1].privateKey,
    PLATFORM_FEE_ADDRESS: privateKeyToAccount(generatePrivateKey()).address,
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(options.metricsPort),
  };
}

function spawnWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', 'src/main.ts'], {
    cwd: WORKER_DIR,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  child.on('error', () => undefined);
  return child;
}

async function waitForEveryLegConfirmed(pool: Pool, worker: ChildProcess): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  let lastReport = 0;
  for (;;) {
    const { rows } = await pool.query<{ forwarded: number; paid: number }>(
      `SELECT count(*) FILTER (WHERE d.status = 'forwarded')::int AS forwarded,
              count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM payouts p WHERE p.deposit_id = d.id AND p.status <> 'confirmed')
                                 AND EXISTS (SELECT 1 FROM payouts p WHERE p.deposit_id = d.id))::int AS paid
       FROM deposits d`,
    );
    const { forwarded, paid } = rows[0]!;
    if (forwarded === DEPOSITS && paid === DEPOSITS) return;
    if (worker.exitCode !== null) throw new Error(`settlement worker exited with code ${worker.exitCode}`);
    if (Date.now() > deadline) throw new Error(`timed out: ${forwarded} forwarded, ${paid} fully paid of ${DEPOSITS}`);
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      console.log(`  ${forwarded}/${DEPOSITS} forwarded, ${paid}/${DEPOSITS} fully paid`);
    }
    await sleep(SAMPLE_MS);
  }
}

async function measure(pool: Pool, t0: Date, env: Record<string, string>): Promise<Run> {
  const { rows } = await pool.query<{ forwarded: number; paid: number }>(
    `SELECT extract(epoch FROM d.forwarded_at - $1::timestamptz)::float8 AS forwarded,
            extract(epoch FROM (SELECT max(p.confirmed_at) FROM payouts p WHERE p.deposit_id = d.id) - $1::timestamptz)::float8 AS paid
     FROM deposits d ORDER BY forwarded`,
    [t0],
  );
  const forwarded = rows.map((row) => row.forwarded);
  const allForwarded = Math.max(...forwarded);
  const allPaid = Math.max(...rows.map((row) => row.paid));
  return {
    label: LABEL,
    measuredAt: new Date().toISOString(),
    gitHead: git(['rev-parse', 'HEAD']),
    workingTreeChanges: git(['status', '--porcelain']).split('\n').filter(Boolean),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      loadAverage: loadavg().map((load) => round(load, 2)),
      node: process.version,
    },
    setup: {
      deposits: DEPOSITS,
      confirmations: CONFIRMATIONS,
      blockTimeSeconds: BLOCK_TIME_SECONDS,
      workerConcurrency: env.WORKER_CONCURRENCY ?? 'default',
      pollIntervalMs: env.POLL_INTERVAL_MS ?? 'default',
    },
    allForwardedSeconds: round(allForwarded, 1),
    depositsForwardedPerMinute: round((DEPOSITS / allForwarded) * 60, 1),
    allLegsConfirmedSeconds: round(allPaid, 1),
    depositsFullyPaidPerMinute: round((DEPOSITS / allPaid) * 60, 1),
    forwardedLatencySeconds: {
      p50: round(percentile(forwarded, 0.5), 1),
      p95: round(percentile(forwarded, 0.95), 1),
      max: round(allForwarded, 1),
    },
  };
}

/** A sanity check that the run really paid out: every temporary wallet ends empty. */
async function checkEveryWalletEmptied(anvil: RunningAnvil, token: Address, pool: Pool): Promise<void> {
  const rpc = publicClient(anvil);
  const { rows } = await pool.query<{ address: Address }>('SELECT polygon_address AS address FROM wallets');
  for (const { address } of rows) {
    const balance = await rpc.readContract({ address: token, abi: usdcAbi, functionName: 'balanceOf', args: [address] });
    if (balance !== 0n) throw new Error(`temporary wallet ${address} still holds ${balance}`);
  }
}

function saveRun(run: Run): Run[] {
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  const earlier: Run[] = existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as { runs: Run[] }).runs : [];
  const runs = [...earlier, run];
  writeFileSync(RESULTS_FILE, `${JSON.stringify({ benchmark: 'settlement-worker deposits per minute, one replica', runs }, null, 2)}\n`);
  console.log(`results appended to ${RESULTS_FILE}`);
  return runs;
}

function printTable(runs: Run[]): void {
  const header = [
    'run',
    'commit',
    'measured at',
    'deposits',
    'conf.',
    'block s',
    'all forwarded s',
    'forwarded/min',
    'all legs paid s',
    'fully paid/min',
    'p50 s',
    'p95 s',
  ];
  const rows = runs.map((run) => [
    run.label,
    run.gitHead.slice(0, 7) + (run.workingTreeChanges.length > 0 ? '+' : ''),
    run.measuredAt.slice(0, 16),
    String(run.setup.deposits),
    String(run.setup.confirmations),
    String(run.setup.blockTimeSeconds),
    run.allForwardedSeconds.toFixed(1),
    run.depositsForwardedPerMinute.toFixed(1),
    run.allLegsConfirmedSeconds.toFixed(1),
    run.depositsFullyPaidPerMinute.toFixed(1),
    run.forwardedLatencySeconds.p50.toFixed(1),
    run.forwardedLatencySeconds.p95.toFixed(1),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise<void>((done) => worker.once('exit', () => done()));
  worker.kill('SIGTERM');
  const force = setTimeout(() => worker.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(force);
}

function publicClient(anvil: RunningAnvil): PublicClient {
  return createPublicClient({
    chain: defineLocalChain(anvil),
    transport: http(anvil.rpcUrl, { retryCount: 0 }),
    pollingInterval: 50,
  }) as PublicClient;
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: REPO_DIR, encoding: 'utf8' }).trim();
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
