// A merchant's ledger export (docs/ledger.md): 100,000 orders of one payout address, each with an
// attempt and its expectation, a forwarded deposit, two confirmed payout legs and a delivered
// callback, seeded with generate_series; exported as CSV by the code path of `gateway ledger export
// --out` (ledgerExport: a cursor read in batches, streamed to the file) for the first 10,000 and for
// all 100,000, beside a naive baseline in the same run: the same query read whole (one FETCH of
// every row, as pool.query would) and serialised whole before writing. Each export runs in a fresh
// Node process, so its peak RSS (getrusage's maxrss) is its own: with Node's defaults (the CLI) and
// with wallet-control's heap limits (the admin endpoint's process). Targets (issue 34): ≥ 20,000
// rows/s, RSS flat as the rows grow ×10. The exports run compiled (dist/, after `pnpm build`), as the
// CLI and wallet-control run wherever they run for real; BENCH_RUNTIME=source runs them through tsx.
// `pnpm --filter @gateway/bench bench:ledger`; results in bench/results/ledger.json. BENCH_SMOKE=1:
// 200 and 2,000 orders.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  createPool,
  LEDGER_CSV_HEADER,
  ledgerCsvRow,
  ledgerEntry,
  ledgerExport,
  LedgerRepository,
  migrate,
  type LedgerOrder,
} from '@gateway/db/cli';
import { benchInt, printMarkdownTable, resultsFile, writeResults } from './bench-mode';
import { appNodeArguments, type AppRuntime } from '@gateway/config';
import { benchRuntime, newBenchRun, removeBenchRun, ROOT } from './bench-apps';

const RESULTS_FILE = resultsFile('ledger.json');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ORDERS = benchInt('BENCH_LEDGER_ORDERS', 100_000, 2_000, 10);
const SIZES = [ORDERS / 10, ORDERS].map(Math.floor);
const RUNS = benchInt('BENCH_RUNS', 2, 1);
const PAYOUT = `0x${'5e'.repeat(20)}`;
const FIRST_ORDER = Date.UTC(2026, 10, 1);
const MINUTE = 60_000;
const TARGET_ROWS_PER_SECOND = 20_000;
const RUNTIME: AppRuntime = process.env.BENCH_RUNTIME === undefined ? 'dist' : benchRuntime();

type Mode = 'streamed' | 'read whole';
/**
 * How the export's process is started: with Node's defaults, as `gateway ledger export` runs; or
 * with wallet-control's heap limits (appNodeArguments), the process GET /admin/ledger runs in. With
 * the defaults V8 lets garbage pile up in the old generation before it collects, so the peak RSS
 * says as much about V8's pace as about what is live; under the limit only what is live counts.
 */
type Heap = 'defaults' | 'wallet-control';
const HEAPS: Heap[] = ['defaults', 'wallet-control'];

interface ChildResult {
  rows: number;
  ms: number;
  maxRssMb: number;
  bytes: number;
  /** CPU time of the exporting process per order (user + system), and of its PostgreSQL backend. */
  cpuUsPerRow: number;
  postgresUsPerRow: number;
}

/** A child that ran out of heap (the read-whole baseline under a limit) did not finish. */
type Outcome = ChildResult | { failed: string };

/** `orders` orders' range (one order a minute from FIRST_ORDER), as `gateway ledger export` reads it from its options. */
function queryOf(orders: number): Parameters<typeof ledgerExport>[1] {
  return { payoutAddress: PAYOUT, from: new Date(FIRST_ORDER), to: new Date(FIRST_ORDER + orders * MINUTE), format: 'csv' };
}

/** CPU time (user + system) a process has used so far, in ms, from the kernel. */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of stat (12 and 13 after the name), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * In the child: one export of `orders` orders to `file`, timed, with this process's peak RSS and
 * the CPU time it and its PostgreSQL backend spent, which a busy machine changes far less than
 * rows/s. The pool has one connection, so the export's statements run on the backend read first.
 */
async function exportOnce(schema: string, mode: Mode, orders: number, file: string): Promise<ChildResult> {
  // No statement timeout: the baseline's one FETCH of every order may take longer than an app's 15 s.
  const pool = createPool({ connectionString: DATABASE_URL, schema, max: 1, applicationName: 'bench-ledger', statementTimeoutMs: 0 });
  const ledger = new LedgerRepository(pool);
  const query = queryOf(orders);
  const progress = { orders: 0 };
  try {
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0]!.pid;
    const [backendBefore, before] = [processCpuMs(backend), process.cpuUsage()];
    const began = performance.now();
    if (mode === 'streamed') {
      await pipeline(ledgerExport(ledger, query, progress), createWriteStream(file));
    } else {
      const all: LedgerOrder[] = [];
      // One batch of every order: the statement's whole result at once, then the whole file as one string.
      for await (const batch of ledger.orders(query, orders + 1)) all.push(...batch);
      progress.orders = all.length;
      writeFileSync(file, LEDGER_CSV_HEADER + all.map((order) => ledgerCsvRow(ledgerEntry(order))).join(''));
    }
    const ms = performance.now() - began;
    const cpu = process.cpuUsage(before);
    return {
      rows: progress.orders,
      ms,
      maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      bytes: statSync(file).size,
      cpuUsPerRow: Math.round((cpu.user + cpu.system) / progress.orders),
      postgresUsPerRow: Math.round(((processCpuMs(backend) - backendBefore) * 1000) / progress.orders),
    };
  } finally {
    await pool.end();
  }
}

/** In the parent: one export in a fresh process, started with `heap`'s arguments. */
function runChild(schema: string, mode: Mode, heap: Heap, orders: number, file: string): Promise<Outcome> {
  // This file runs through tsx either way; from dist, the packages it imports resolve to their compiled code.
  const runner = RUNTIME === 'source' ? [] : ['--require', 'tsx/cjs'];
  const nodeArguments = [
    ...(heap === 'defaults' ? appNodeArguments('cli', RUNTIME) : appNodeArguments('wallet-control', RUNTIME)),
    ...runner,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArguments, __filename, '--child', schema, mode, String(orders), file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(JSON.parse(output.trim().split('\n').at(-1)!) as ChildResult);
      else if (/heap out of memory/.test(errors)) resolve({ failed: 'out of memory' });
      else reject(new Error(`the ${mode} export of ${orders} orders (${heap}) ended with ${code ?? signal}: ${errors.slice(-2000)}`));
    });
  });
}

/** 100,000 orders in a few statements: wallets, their attempts, deposits, legs, deliveries and accepted attempts. */
async function seed(pool: ReturnType<typeof createPool>, orders: number): Promise<void> {
  const statements = [
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token, created_at)
     SELECT i, '0x' || lpad(to_hex(i), 40, '0'), 'sealed', $1, 'https://shop.example/ipn?order=' || i,
            sha256(convert_to('bench' || i, 'UTF8')), 'bench-token-' || i, $2::timestamptz + i * interval '1 minute'
     FROM generate_series(0, $3 - 1) AS i`,
    `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, checkout_url, created_at, provider_reference, provider_status,
                           amount_usd, usd_rate, usd_rate_source, usd_rate_as_of, expected_usdc, expected_basis, tolerance_bps, window_ends_at)
     SELECT gen_random_uuid(), w.id, 23.50, 'EUR', 'moonpay', 'buyer@example.com', 'https://sandbox.example/c', w.created_at,
            'mp-' || w.hd_index, 'paid', 25.55, '0.92', 'ecb', w.created_at, 25000000, 'quote', 100, w.created_at + interval '1 day'
     FROM wallets w`,
    `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, block_time, wallet_id, from_address, amount, status,
                           seen_at, final_at, forwarded_at)
     SELECT 137, '0x' || lpad(to_hex(w.hd_index), 64, '0'), 0, 1000 + w.hd_index, '0x' || lpad(to_hex(w.hd_index), 64, 'b'),
            w.created_at + interval '5 minutes', w.id, '0x' || lpad('', 40, 'c'), 25000000 + w.hd_index % 1000, 'forwarded',
            w.created_at + interval '5 minutes', w.created_at + interval '6 minutes', w.created_at + interval '7 minutes'
     FROM wallets w`,
    `INSERT INTO payouts (deposit_id, leg, from_address, to_address, amount, authorization_nonce, valid_before, status, tx_hash, block_number,
                          confirmed_at)
     SELECT d.id, l.leg, w.polygon_address, CASE l.leg WHEN 'merchant' THEN w.payout_address ELSE '0x' || lpad('', 40, 'f') END,
            CASE l.leg WHEN 'merchant' THEN d.amount - d.amount / 100 ELSE d.amount / 100 END,
            '0x' || lpad(to_hex(d.id * 2 + l.n), 64, '0'), 0, 'confirmed', '0x' || lpad(to_hex(d.id * 2 + l.n), 64, 'e'), 2000,
            d.final_at + interval '1 minute'
     FROM deposits d JOIN wallets w ON w.id = d.wallet_id CROSS JOIN (VALUES ('merchant', 0), ('platform', 1)) AS l(leg, n)`,
    `INSERT INTO callback_deliveries (id, wallet_id, deposit_id, value_coin, value_forwarded_coin, fee_coin, txid_in, txid_out, status,
                                      created_at, delivered_at)
     SELECT gen_random_uuid(), d.wallet_id, d.id, d.amount, d.amount - d.amount / 100, d.amount / 100, d.tx_hash, d.tx_hash, 'delivered',
            d.forwarded_at, d.forwarded_at + interval '1 second'
     FROM deposits d`,
    `INSERT INTO callback_attempts (delivery_id, attempt_no, started_at, duration_ms, status_code)
     SELECT id, 1, delivered_at - interval '80 milliseconds', 80, 200 FROM callback_deliveries`,
    'ANALYZE',
  ];
  const values = [[PAYOUT, new Date(FIRST_ORDER), orders]];
  for (const [index, text] of statements.entries()) await pool.query(text, values[index] ?? []);
}

interface Measured {
  mode: Mode;
  heap: Heap;
  orders: number;
  /** Null: it did not finish (`failed`). */
  rowsPerSecond: number | null;
  maxRssMb: number | null;
  mb: number | null;
  /** The fastest run's CPU µs per order: the exporting process, its PostgreSQL backend. */
  cpuUsPerRow: number | null;
  postgresUsPerRow: number | null;
  failed?: string;
  runs: Outcome[];
}

async function measure(schema: string, dir: string, mode: Mode, heap: Heap, orders: number): Promise<Measured> {
  const runs: Outcome[] = [];
  for (let i = 0; i < RUNS; i += 1) runs.push(await runChild(schema, mode, heap, orders, join(dir, `${mode}-${heap}-${orders}.csv`)));
  const finished = runs.filter((run): run is ChildResult => !('failed' in run));
  if (finished.length === 0) {
    return {
      mode,
      heap,
      orders,
      rowsPerSecond: null,
      maxRssMb: null,
      mb: null,
      cpuUsPerRow: null,
      postgresUsPerRow: null,
      failed: 'out of memory',
      runs,
    };
  }
  if (finished.some((result) => result.rows !== orders))
    throw new Error(`the ${mode} export gave ${finished.map((r) => r.rows)} of ${orders} rows`);
  const best = finished.reduce((a, b) => (b.ms < a.ms ? b : a));
  return {
    mode,
    heap,
    orders,
    rowsPerSecond: Math.round(orders / (best.ms / 1000)),
    maxRssMb: Math.max(...finished.map((result) => result.maxRssMb)),
    mb: Math.round(best.bytes / 2 ** 20),
    cpuUsPerRow: best.cpuUsPerRow,
    postgresUsPerRow: best.postgresUsPerRow,
    runs,
  };
}

async function main(): Promise<void> {
  if (RUNTIME === 'dist' && !existsSync(join(ROOT, 'packages/db/dist/ledger-export.js'))) {
    throw new Error('packages/db/dist is missing: run pnpm build first, or BENCH_RUNTIME=source');
  }
  const run = newBenchRun();
  // Seeding 100,000 orders' payout legs takes longer than a statement of the apps may (15 s on a busy machine).
  const admin = createPool({
    connectionString: DATABASE_URL,
    schema: run.schema,
    max: 1,
    applicationName: 'bench-ledger',
    statementTimeoutMs: 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
  try {
    await migrate(admin, run.schema);
    const seeding = performance.now();
    await seed(admin, ORDERS);
    console.log(
      `${ORDERS.toLocaleString('en')} orders seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s; ` +
        `${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(2)}; ${RUNS} run(s) of each export from ${RUNTIME}, the fastest kept`,
    );
    const measured: Measured[] = [];
    for (const mode of ['streamed', 'read whole'] as const) {
      for (const heap of HEAPS) for (const orders of SIZES) measured.push(await measure(run.schema, dir, mode, heap, orders));
    }
    const streamed = (heap: Heap) => measured.filter((m) => m.mode === 'streamed' && m.heap === heap);
    const growth = (heap: Heap) => (streamed(heap)[1]!.maxRssMb ?? 0) / (streamed(heap)[0]!.maxRssMb ?? 1);
    const rssGrowth = { defaults: Number(growth('defaults').toFixed(2)), 'wallet-control': Number(growth('wallet-control').toFixed(2)) };
    const fastest = Math.max(
      ...streamed('defaults')
        .slice(1)
        .map((m) => m.rowsPerSecond ?? 0),
    );
    const verdict = {
      rowsPerSecond: fastest >= TARGET_ROWS_PER_SECOND ? 'met' : 'missed',
      // Flat: the ×10 export's peak within 20 % of the small one's (the process's own ~120 MB is most of both).
      rssFlat: rssGrowth['wallet-control'] <= 1.2 ? 'met' : 'missed',
    };
    printTable(measured);
    console.log(
      `\nstreamed at ${SIZES[1]!.toLocaleString('en')} orders: ${fastest.toLocaleString('en')} rows/s, ${verdict.rowsPerSecond} the ` +
        `${TARGET_ROWS_PER_SECOND.toLocaleString('en')} target; peak RSS ×${rssGrowth['wallet-control']} for ×10 rows under ` +
        `wallet-control's heap limits (flat: ${verdict.rssFlat}), ×${rssGrowth.defaults} with Node's defaults`,
    );
    writeResults(RESULTS_FILE, {
      finishedAt: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version, loadAverage: loadavg() },
      settings: { orders: ORDERS, sizes: SIZES, runs: RUNS, runtime: RUNTIME },
      targets: { rowsPerSecond: TARGET_ROWS_PER_SECOND, rssGrowthAtMost: 1.2 },
      verdict,
      rssGrowth,
      results: measured,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await removeBenchRun(admin, run);
    await admin.end();
  }
}

function printTable(measured: Measured[]): void {
  const header = ['export', 'process', 'orders', 'rows/s', 'CPU µs per row: export + PostgreSQL', 'peak RSS, MB', 'CSV, MB'];
  const rows = measured.map((m) => [
    m.mode === 'streamed' ? 'streamed (gateway ledger export)' : 'baseline: read whole, then written',
    m.heap === 'defaults' ? "Node's defaults (the CLI)" : "wallet-control's heap limits",
    m.orders.toLocaleString('en'),
    m.rowsPerSecond === null ? (m.failed ?? '') : m.rowsPerSecond.toLocaleString('en'),
    m.cpuUsPerRow === null ? '' : `${m.cpuUsPerRow} + ${m.postgresUsPerRow}`,
    m.maxRssMb === null ? '' : String(m.maxRssMb),
    m.mb === null ? '' : String(m.mb),
  ]);
  printMarkdownTable(header, rows);
}

if (process.argv[2] === '--child') {
  const [, , , schema, mode, orders, file] = process.argv;
  exportOnce(schema!, mode as Mode, Number(orders), file!).then(
    (result) => console.log(JSON.stringify(result)),
    (error: Error) => {
      console.error(`ledger export failed: ${error.message}`);
      process.exitCode = 1;
    },
  );
} else {
  main().catch((error: Error) => {
    console.error(`bench failed: ${error.message}`);
    process.exitCode = 1;
  });
}
