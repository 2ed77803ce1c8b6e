// Every benchmark in its smoke mode (BENCH_SMOKE=1, see src/bench-mode.ts), run as `pnpm bench:*`
// runs it: a child process on the real PostgreSQL, Redis and anvil. A bench that no longer runs
// (it exits non-zero, prints no table or writes no results) fails here, and so in CI. The numbers
// of a smoke run mean nothing; the full runs stay manual. cold-start starts the apps from dist/ as
// well, which `npm test` builds first (tsc -b), as the image test needs it.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestRedis, type TestRedis } from '@gateway/testkit';

const BENCH_DIR = join(__dirname, '..');
// Each bench file and the JSON it writes. bench:dist is http-bench from dist/: cold-start already
// starts both API apps from dist/, so a second HTTP smoke (~20 s here) would add little.
const BENCHES: Record<string, string> = {
  'http-bench.ts': 'http.json',
  'callback-bench.ts': 'callbacks.json',
  'gas-bench.ts': 'gas.json',
  'watcher-bench.ts': 'watcher.json',
  'settlement-bench.ts': 'settlement.json',
  'cold-start-bench.ts': 'cold-start.json',
  'session-checkout-bench.ts': 'sessions.json',
  'new-wallet-fairness-bench.ts': 'new-wallet-fairness.json',
  'ledger-export-bench.ts': 'ledger.json',
  'checkout-page-bench.ts': 'checkout-page.json',
};
// Seconds a smoke run took here (2 cores shared, load average ~6): 1–13; the limit leaves room for a
// busier CI machine running another test file beside this one.
const RUN_LIMIT_MS = 120_000;

interface BenchRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Runs one bench as `pnpm bench:*` does, in its own process group so a timeout can stop what it started. */
function runBench(file: string, resultsDir: string): Promise<BenchRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', `src/${file}`], {
      cwd: BENCH_DIR,
      env: { ...process.env, BENCH_SMOKE: '1', BENCH_RESULTS_DIR: resultsDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => {
      output += `\n[smoke test] no exit after ${RUN_LIMIT_MS} ms: process group ${child.pid} killed`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group ended between the deadline and this call: nothing left to stop.
      }
    }, RUN_LIMIT_MS);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

/** A Markdown table: a row of cells, a |---| separator under it, and at least one row of data. */
function printsTable(output: string): boolean {
  const lines = output.split('\n').map((line) => line.trim());
  return lines.some(
    (line, i) => /^\|(\s*:?-{3,}:?\s*\|)+$/.test(line) && (lines[i - 1] ?? '').startsWith('|') && /^\|.*\|$/.test(lines[i + 1] ?? ''),
  );
}

/** What the benches' runs own in PostgreSQL and Redis (bench-apps.ts newBenchRun, the callback bench's prefix). */
async function leftovers(database: Client, redis: TestRedis['redis']): Promise<string[]> {
  const schemas = await database.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'bench\\_%'`);
  const prefixes = new Set<string>();
  for await (const keys of redis.scanStream({ match: 'bench-*', count: 1000 })) {
    for (const key of keys as string[]) prefixes.add(key.split(':')[0] as string);
  }
  return [...schemas.rows.map((row) => `schema ${row.name}`), ...[...prefixes].map((prefix) => `Redis prefix ${prefix}`)].sort();
}

describe('benchmarks, smoke mode', () => {
  let resultsDir: string;
  let database: Client;
  let redis: TestRedis;

  beforeAll(async () => {
    resultsDir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    database = new Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await database.connect();
    redis = createTestRedis('smoke');
  });

  afterAll(async () => {
    rmSync(resultsDir, { recursive: true, force: true });
    await database.end();
    await redis.close();
  });

  it('covers every bench in src/', () => {
    const files = readdirSync(join(BENCH_DIR, 'src')).filter((file) => file.endsWith('-bench.ts'));
    expect(files.sort()).toEqual(Object.keys(BENCHES).sort());
  });

  it('recognises a table only with its separator and a row of data', () => {
    expect(printsTable('| a | b |\n|---|---:|\n| 1 | 2 |\n')).toBe(true);
    expect(printsTable('| a | b |\n| --- | --- |\n| 1 | 2 |')).toBe(true);
    expect(printsTable('| a | b |\n|---|---|\n')).toBe(false);
    expect(printsTable('a | b\n1 | 2\n')).toBe(false);
    expect(printsTable('results written to bench/results/x.json')).toBe(false);
  });

  it.each(Object.entries(BENCHES))(
    '%s exits 0, prints its table and writes %s',
    async (file, json) => {
      const before = await leftovers(database, redis.redis);
      const run = await runBench(file, resultsDir);
      const tail = run.output.slice(-4000);
      expect({ code: run.code, signal: run.signal, tail }).toEqual({ code: 0, signal: null, tail });
      expect({ printsTable: printsTable(run.output), tail }).toEqual({ printsTable: true, tail });
      // The HTTP bench's verdict when a scenario got non-2xx answers or connection errors.
      expect(run.output).not.toContain('ERRORS:');
      const resultsFile = join(resultsDir, json);
      expect(existsSync(resultsFile)).toBe(true);
      expect(() => JSON.parse(readFileSync(resultsFile, 'utf8'))).not.toThrow();
      // A run removes what it made: jobs left under a prefix stay in Redis for good (the HTTP bench
      // left ~30 MB a run) and slow every run after it.
      const left = (await leftovers(database, redis.redis)).filter((thing) => !before.includes(thing));
      expect(left).toEqual([]);
    },
    RUN_LIMIT_MS + 10_000,
  );
});
