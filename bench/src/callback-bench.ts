// Merchant callback delivery, end to end: delivery rows committed in PostgreSQL and their jobs
// added (as settlement does) → the real callback-worker process (claim, sign, SSRF-guarded GET,
// record) → 2xx from a local Fastify merchant stub. Beside it, in the same run and against the
// same stub, a baseline of plain undici GETs at the same concurrency: the ratio is what the
// pipeline costs on this machine. A third measurement, the queue floor, sends the same GETs from
// a bare BullMQ worker (one job per GET, nothing else): no pipeline that keeps one job per
// delivery can beat it here. `pnpm --filter @gateway/bench bench:callbacks`; results in
// bench/results/callbacks.json. BENCH_SMOKE=1: 200 deliveries a run, warm-ups and the paced run cut short.
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Queue, Worker } from 'bullmq';
import Fastify from 'fastify';
import { Agent, request } from 'undici';
import { createPool, migrate } from '@gateway/db';
import { CALLBACK_JOB_NAME, callbackJobId, callbackJobOptions, QUEUE_NAMES } from '@gateway/queue';
import { deleteRedisPrefix, findFreePort, sleep, waitForReadyz } from '@gateway/testkit';
import { seedWallet } from '@gateway/app-testkit';
import { benchInt, resultsFile } from './bench-mode';

const ROOT = join(__dirname, '..', '..');
const RESULTS_FILE = resultsFile('callbacks.json');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONCURRENCY = benchInt('BENCH_CONCURRENCY', 50, 50);
// Worker processes sharing CONCURRENCY (the worker scales out by running more of them).
const WORKERS = benchInt('BENCH_WORKERS', 1, 1);
const DELIVERIES = benchInt('BENCH_DELIVERIES', 5000, 200);
const WARMUP = benchInt('BENCH_WARMUP', 1000, 100);
// Plain GETs that warm the stub (and the client) before anything is measured: a cold Fastify stub
// answers at about half its warm rate, which would make the first baseline too easy to beat.
const STUB_WARMUP = benchInt('BENCH_STUB_WARMUP', 20_000, 500);
const PACED_RATE = benchInt('BENCH_PACED_RATE', 500, 500);
const PACED_SECONDS = benchInt('BENCH_PACED_SECONDS', 4, 1);
const TARGET_SHARE = 0.5;
const STUB_MODE = '--merchant-stub';
const FLOOR_WORKER_MODE = '--queue-floor-worker';
const FLOOR_QUEUE = 'queue-floor';

const schema = `bench_cb_${randomBytes(4).toString('hex')}`;
const redisPrefix = `bench-cb-${randomBytes(4).toString('hex')}`;
const pool = createPool({ connectionString: DATABASE_URL, schema, max: 4, applicationName: 'callback-bench' });
// Opened on first use: the merchant-stub process runs this file too and must not connect.
let queue: Queue | undefined;
const children = new Set<ChildProcess>();
const workerPids: number[] = [];
let stubPid = 0;

interface RunResult {
  id: string;
  title: string;
  deliveries: number;
  seconds: number;
  perSecond: number;
  dueToDeliveredMs?: { p50: number; p99: number; max: number };
  shareOfBaseline?: number;
  /** CPU time per delivery (or per GET) by process, in µs, where /proc can tell. */
  cpuMicrosPerItem?: Record<string, number>;
}

async function main(): Promise<void> {
  const machine = describeMachine();
  console.log(
    `machine: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGb} GB, node ${machine.node}; load average ` +
      `${machine.loadAverage.join(' ')}\n` +
      `concurrency ${CONCURRENCY} (${WORKERS} worker process${WORKERS > 1 ? 'es' : ''}), ${DELIVERIES} deliveries per run after ` +
      `${WARMUP} warm-up; schema ${schema}, Redis prefix ${redisPrefix}\n`,
  );
  await migrate(pool, schema);
  const stubUrl = await startMerchantStub();
  // Each wallet gets a callback path of its own: a callback belongs to one payout address, and each
  // wallet here has its own. The baseline's GETs use a path of the same length (no wallet has it).
  const callbackUrl = (wallet: number) => `${stubUrl}/ipn/wallet-${wallet}?order=bench-1234&shop=demo`;
  const sampleUrl = await sampleCallbackUrl(callbackUrl(0));

  const results: RunResult[] = [];
  await plainGets(sampleUrl, STUB_WARMUP);
  const baselineBefore = await baseline(sampleUrl, 'baseline-before', 'baseline: plain undici GETs (before)');
  results.push(baselineBefore);
  results.push(await queueFloor(sampleUrl));

  await Promise.all(Array.from({ length: WORKERS }, () => startWorker()));
  // One wallet per run: the run's rows are found by wallet, and runs never overlap.
  await burst(await insertWallet(callbackUrl(1)), WARMUP, 'warm-up');
  results.push(
    await burst(await insertWallet(callbackUrl(2)), DELIVERIES, 'pipeline-burst', 'pipeline: rows committed + jobs added at once'),
  );
  results.push(await paced(await insertWallet(callbackUrl(3))));
  results.push(await recovery(await insertWallet(callbackUrl(4))));
  const baselineAfter = await baseline(sampleUrl, 'baseline-after', 'baseline: plain undici GETs (after)');
  results.push(baselineAfter);

  // The faster of the two baselines, so background load during the run cannot flatter the ratio.
  const reference = Math.max(baselineBefore.perSecond, baselineAfter.perSecond);
  for (const result of results) {
    if (!result.id.startsWith('baseline')) result.shareOfBaseline = round(result.perSecond / reference, 3);
  }
  const pipeline = results.find((result) => result.id === 'pipeline-burst')!;
  const floor = results.find((result) => result.id === 'queue-floor')!;
  const verdict = (pipeline.shareOfBaseline ?? 0) >= TARGET_SHARE ? 'meets' : 'misses';
  printTable(results);
  printCpu(results);
  console.log(
    `\nend-to-end burst: ${pipeline.perSecond} deliveries/s = ${percent(pipeline.shareOfBaseline ?? 0)} of the plain-GET baseline ` +
      `(${reference} req/s); target ≥ ${percent(TARGET_SHARE)}: ${verdict}\n` +
      `queue floor (BullMQ job + the same GET, nothing else): ${floor.perSecond}/s = ${percent(floor.shareOfBaseline ?? 0)} of the ` +
      `baseline; ` +
      `the pipeline reaches ${percent(pipeline.perSecond / floor.perSecond)} of the floor`,
  );
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        machine,
        settings: {
          concurrency: CONCURRENCY,
          workerProcesses: WORKERS,
          deliveries: DELIVERIES,
          warmup: WARMUP,
          pacedRate: PACED_RATE,
          pacedSeconds: PACED_SECONDS,
        },
        baselinePerSecond: reference,
        queueFloorPerSecond: floor.perSecond,
        target: { shareOfBaseline: TARGET_SHARE, verdict },
        runs: results,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`results written to ${RESULTS_FILE}`);
}

/** N plain GETs of a callback-sized URL, CONCURRENCY at a time, after a warm-up of the connections. */
async function baseline(url: string, id: string, title: string): Promise<RunResult> {
  const agent = new Agent();
  await plainGets(url, WARMUP, agent);
  const cpuBefore = await cpuSnapshot();
  const startedAt = performance.now();
  await plainGets(url, DELIVERIES, agent);
  const seconds = (performance.now() - startedAt) / 1000;
  const cpuMicrosPerItem = cpuPerItem(cpuBefore, await cpuSnapshot(), DELIVERIES);
  await agent.close();
  return timedResult(id, title, seconds, cpuMicrosPerItem);
}

/** A run of DELIVERIES items that took `seconds`, printed as it ends. */
function timedResult(id: string, title: string, seconds: number, cpuMicrosPerItem: Record<string, number> | undefined): RunResult {
  const result = {
    id,
    title,
    deliveries: DELIVERIES,
    seconds: round(seconds, 3),
    perSecond: Math.round(DELIVERIES / seconds),
    cpuMicrosPerItem,
  };
  console.log(`${title}: ${result.perSecond}/s`);
  return result;
}

async function plainGets(url: string, count: number, dispatcher?: Agent): Promise<void> {
  const agent = dispatcher ?? new Agent();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        const response = await request(url, { dispatcher: agent });
        await response.body.text();
        if (response.statusCode !== 200) throw new Error(`stub answered ${response.statusCode}`);
      }
    }),
  );
  if (dispatcher === undefined) await agent.close();
}

/**
 * The least any pipeline with one BullMQ job per delivery can cost: jobs added in bulk as the
 * pipeline's are, taken by a bare BullMQ worker in its own process (same concurrency) whose only
 * work is the plain GET. No database, no signature, no SSRF guard.
 */
async function queueFloor(url: string): Promise<RunResult> {
  const title = 'queue floor: BullMQ job + plain GET, nothing else';
  const floorQueue = new Queue(FLOOR_QUEUE, { connection: redisOptions(), prefix: redisPrefix });
  const worker = spawnChild(
    ['--conditions=@gateway/source', '--import', 'tsx', __filename, FLOOR_WORKER_MODE, url, String(DELIVERIES + WARMUP)],
    { REDIS_URL, REDIS_PREFIX: redisPrefix },
    'pipe',
  );
  const lines = createInterface({ input: worker.stdout! });
  // The iterator buffers lines, so one printed before we ask for it is not lost.
  const reader = lines[Symbol.asyncIterator]();
  const nextLine = async (): Promise<string> => {
    const { value, done } = await reader.next();
    if (done) throw new Error('the queue-floor worker exited');
    return value as string;
  };
  try {
    await nextLine();
    const add = async (count: number, from: number) => {
      for (let start = 0; start < count; start += 1000) {
        const size = Math.min(1000, count - start);
        await floorQueue.addBulk(
          Array.from({ length: size }, (_, i) => ({
            name: 'get',
            data: { deliveryId: `floor-${from + start + i}` },
            opts: { ...callbackJobOptions, jobId: `floor-${from + start + i}` },
          })),
        );
      }
    };
    await add(WARMUP, 0);
    await nextLine();
    const cpuBefore = await cpuSnapshot(worker.pid);
    const startedAt = performance.now();
    await add(DELIVERIES, WARMUP);
    await nextLine();
    const seconds = (performance.now() - startedAt) / 1000;
    const cpuMicrosPerItem = cpuPerItem(cpuBefore, await cpuSnapshot(worker.pid), DELIVERIES);
    return timedResult('queue-floor', title, seconds, cpuMicrosPerItem);
  } finally {
    lines.close();
    worker.kill('SIGTERM');
    await floorQueue.close();
  }
}

/** The queue-floor worker: prints a line when ready, after the warm-up jobs and after the last job. */
async function runQueueFloorWorker(url: string, total: number): Promise<void> {
  const agent = new Agent();
  let done = 0;
  const worker = new Worker(
    FLOOR_QUEUE,
    async () => {
      const response = await request(url, { dispatcher: agent });
      await response.body.text();
      done += 1;
      if (done === WARMUP || done === total) console.log(`done ${done}`);
    },
    { connection: { ...redisOptions(), maxRetriesPerRequest: null }, prefix: process.env.REDIS_PREFIX, concurrency: CONCURRENCY },
  );
  await worker.waitUntilReady();
  console.log('ready');
  process.on('SIGTERM', () => void Promise.all([worker.close(), agent.close()]).then(() => process.exit(0)));
}

/** Rows committed in one transaction, then their jobs added, as settlement does per deposit. */
async function burst(walletId: string, count: number, id: string, title = id): Promise<RunResult> {
  const cpuBefore = await cpuSnapshot();
  const ids = await insertDeliveries(walletId, count);
  await enqueue(ids);
  const result = await finish(walletId, id, title);
  return { ...result, cpuMicrosPerItem: cpuPerItem(cpuBefore, await cpuSnapshot(), count) };
}

/** A steady stream well under capacity: due→delivered is then the latency of one delivery, not a queue. */
async function paced(walletId: string): Promise<RunResult> {
  const tickMs = 20;
  const perTick = Math.max(1, Math.round((PACED_RATE * tickMs) / 1000));
  const startedAt = performance.now();
  for (let tick = 0; tick < (PACED_SECONDS * 1000) / tickMs; tick += 1) {
    await enqueue(await insertDeliveries(walletId, perTick));
    const wait = startedAt + (tick + 1) * tickMs - performance.now();
    if (wait > 0) await sleep(wait);
  }
  return finish(walletId, 'pipeline-paced', `pipeline: ${PACED_RATE}/s steady stream`);
}

/** Rows with no job at all (Redis lost them): the reconciler finds and delivers them. */
async function recovery(walletId: string): Promise<RunResult> {
  await insertDeliveries(walletId, DELIVERIES);
  return finish(walletId, 'pipeline-recovery', 'recovery: rows only in PostgreSQL (reconciler)');
}

/**
 * Waits for every row of the run to be delivered (a count over the small index of pending rows, so
 * watching costs the database next to nothing); rate and latency come from the rows' own timestamps.
 */
async function finish(walletId: string, id: string, title: string): Promise<RunResult> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const { rows } = await pool.query<{ pending: number }>(
      `SELECT count(*)::int AS pending FROM callback_deliveries WHERE status = 'pending'`,
    );
    if (rows[0]?.pending === 0) break;
    if (Date.now() > deadline) throw new Error(`${title}: ${rows[0]?.pending} deliveries still not delivered`);
    await sleep(200);
  }
  const { rows } = await pool.query<{ deliveries: number; seconds: number; p50: number; p99: number; max: number }>(
    `SELECT count(*)::int AS deliveries, extract(epoch FROM max(delivered_at) - min(created_at))::float8 AS seconds,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - created_at)) * 1000 AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - created_at)) * 1000 AS p99,
            max(extract(epoch FROM delivered_at - created_at)) * 1000 AS max
     FROM callback_deliveries WHERE wallet_id = $1`,
    [walletId],
  );
  const stats = rows[0]!;
  const result: RunResult = {
    id,
    title,
    deliveries: stats.deliveries,
    seconds: round(stats.seconds, 3),
    perSecond: Math.round(stats.deliveries / stats.seconds),
    dueToDeliveredMs: { p50: round(stats.p50, 1), p99: round(stats.p99, 1), max: round(Number(stats.max), 1) },
  };
  console.log(
    `${title}: ${result.perSecond}/s, due→delivered p50 ${result.dueToDeliveredMs!.p50} ms, p99 ${result.dueToDeliveredMs!.p99} ms`,
  );
  return result;
}

async function insertWallet(callbackUrl: string): Promise<string> {
  return (await seedWallet(pool, { callbackUrl })).id;
}

/** Due now (next_attempt_at = created_at = the commit's clock), with realistic amounts and hashes. */
async function insertDeliveries(walletId: string, count: number): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO callback_deliveries (id, wallet_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out)
     SELECT gen_random_uuid(), $1, 25000000 + n, 24750000 + n, 250000,
            '0x' || encode(sha256(('in' || n || $3)::bytea), 'hex'), '0x' || encode(sha256(('out' || n || $3)::bytea), 'hex')
     FROM generate_series(1, $2) AS n
     RETURNING id::text`,
    [walletId, count, randomBytes(8).toString('hex')],
  );
  return rows.map((row) => row.id);
}

async function enqueue(ids: string[]): Promise<void> {
  queue ??= new Queue(QUEUE_NAMES.callbacks, { connection: redisOptions(), prefix: redisPrefix });
  for (let start = 0; start < ids.length; start += 1000) {
    await queue.addBulk(
      ids
        .slice(start, start + 1000)
        .map((id) => ({ name: CALLBACK_JOB_NAME, data: { deliveryId: id }, opts: { ...callbackJobOptions, jobId: callbackJobId(id) } })),
    );
  }
}

/** The URL a delivery of this bench produces, for the baseline to fetch: same length, same stub route. */
async function sampleCallbackUrl(callbackUrl: string): Promise<string> {
  const txid = `0x${randomBytes(32).toString('hex')}`;
  return (
    `${callbackUrl}&value_coin=25.000001&value_forwarded_coin=24.750001&fee_coin=0.25&coin=polygon_usdc` +
    `&txid_in=${txid}&txid_out=${txid}&address_in=0x${randomBytes(20).toString('hex')}` +
    `&ipn_token=${randomBytes(24).toString('base64url')}`
  );
}

/**
 * CPU seconds used so far by every process taking part, read from /proc (Linux, local services).
 * Redis is the whole server, so other users of it count too; PostgreSQL is the worker's backends.
 */
async function cpuSnapshot(floorWorkerPid?: number): Promise<Map<string, number>> {
  const snapshot = new Map<string, number>();
  const own = process.cpuUsage();
  snapshot.set('bench process (undici client, enqueue)', (own.user + own.system) / 1e6);
  if (!existsSync('/proc/self/stat')) return snapshot;
  snapshot.set('merchant stub', processCpuSeconds(stubPid));
  snapshot.set(
    'callback-worker',
    workerPids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0),
  );
  if (floorWorkerPid !== undefined) snapshot.set('queue-floor worker', processCpuSeconds(floorWorkerPid));
  const { rows } = await pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE application_name = 'callback-worker' AND datname = current_database()`,
  );
  for (const { pid } of rows) snapshot.set(`postgres:${pid}`, processCpuSeconds(pid));
  const redis = readdirSync('/proc').find((entry) => /^\d+$/.test(entry) && readProc(`/proc/${entry}/comm`)?.trim() === 'redis-server');
  if (redis !== undefined) snapshot.set('Redis (whole server)', processCpuSeconds(Number(redis)));
  return snapshot;
}

function cpuPerItem(before: Map<string, number>, after: Map<string, number>, items: number): Record<string, number> {
  const perProcess: Record<string, number> = {};
  for (const [name, seconds] of after) {
    // Backends that appeared during the run started from zero.
    const key = name.startsWith('postgres:') ? 'PostgreSQL (worker connections)' : name;
    perProcess[key] = (perProcess[key] ?? 0) + (seconds - (before.get(name) ?? 0));
  }
  return Object.fromEntries(Object.entries(perProcess).map(([name, seconds]) => [name, Math.round((seconds * 1e6) / items)]));
}

function processCpuSeconds(pid: number): number {
  // utime and stime are fields 14 and 15, in clock ticks (100 per second on Linux); the command
  // name in field 2 may hold spaces, so count from its closing parenthesis.
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === undefined) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function startWorker(): Promise<void> {
  const port = await findFreePort();
  const privateKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  // e.g. BENCH_WORKER_NODE_ARGS=--cpu-prof to profile the worker (the profile is written when it stops).
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const worker = spawnChild([...nodeArgs, '--conditions=@gateway/source', '--import', 'tsx', 'apps/callback-worker/src/main.ts'], {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL,
    REDIS_PREFIX: redisPrefix,
    CALLBACK_SIGNING_KEYS: `bench:${privateKey}`,
    CALLBACK_ALLOWED_CIDRS: '127.0.0.0/8',
    WORKER_CONCURRENCY: String(CONCURRENCY / WORKERS),
    // One merchant here: its share is the whole worker, so both sides run CONCURRENCY requests.
    PER_HOST_CONCURRENCY: String(CONCURRENCY / WORKERS),
    RECONCILE_INTERVAL_MS: '1000',
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: String(port),
  });
  workerPids.push(worker.pid!);
  await waitForReadyz('the callback-worker', `http://127.0.0.1:${port}`, worker);
}

/** The merchant: a bare Fastify route answering "ok", in its own process like a real shop. */
async function startMerchantStub(): Promise<string> {
  const child = spawnChild(['--conditions=@gateway/source', '--import', 'tsx', __filename, STUB_MODE], {}, 'pipe');
  stubPid = child.pid!;
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', () => reject(new Error('the merchant stub exited')));
  });
  return line.trim();
}

async function runMerchantStub(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/ipn/:run', async () => 'ok');
  console.log(await app.listen({ host: '127.0.0.1', port: 0 }));
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

function spawnChild(args: string[], env: Record<string, string>, stdout: 'inherit' | 'pipe' = 'inherit'): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function printTable(results: RunResult[]): void {
  const rows = results.map((r) => [
    r.title,
    String(r.perSecond),
    r.dueToDeliveredMs ? `${r.dueToDeliveredMs.p50}` : '—',
    r.dueToDeliveredMs ? `${r.dueToDeliveredMs.p99}` : '—',
    r.shareOfBaseline === undefined ? '—' : percent(r.shareOfBaseline),
  ]);
  const header = ['run', 'per second', 'due→delivered p50 ms', 'p99 ms', 'share of baseline'];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  console.log(`\n${line(header)}\n|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

function printCpu(results: RunResult[]): void {
  console.log('\nCPU time per delivery / per GET (µs), from /proc:');
  for (const result of results) {
    if (!result.cpuMicrosPerItem) continue;
    const parts = Object.entries(result.cpuMicrosPerItem).filter(([, micros]) => micros > 0);
    const total = parts.reduce((sum, [, micros]) => sum + micros, 0);
    console.log(`  ${result.title}: ${parts.map(([name, micros]) => `${name} ${micros}`).join(', ')}; total ${total}`);
  }
}

function describeMachine() {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
  };
}

function redisOptions() {
  const url = new URL(REDIS_URL);
  return { host: url.hostname, port: Number(url.port || 6379), password: url.password || undefined };
}

async function cleanUp(): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
        }),
    ),
  );
  // Every key under this run's prefix: the queue's and the worker's own (its reconciler's marker).
  await deleteRedisPrefix(redisPrefix, REDIS_URL).catch(() => undefined);
  await queue?.close();
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await pool.end();
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

if (process.argv[2] === STUB_MODE) {
  void runMerchantStub();
} else if (process.argv[2] === FLOOR_WORKER_MODE) {
  void runQueueFloorWorker(process.argv[3]!, Number(process.argv[4]));
} else {
  main()
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    })
    .finally(() => cleanUp());
}
