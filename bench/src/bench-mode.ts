// Full or smoke run, shared by every bench. BENCH_SMOKE=1 runs the same code paths at a small N
// (a few seconds each), so `npm test` can run every bench and a bench that breaks fails CI; its
// numbers mean nothing and go to bench/results/smoke/ (git-ignored), never over a full run's.
// A BENCH_* variable set explicitly wins over both sizes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const SMOKE = process.env.BENCH_SMOKE === '1';

const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? join(__dirname, '..', 'results', ...(SMOKE ? ['smoke'] : []));

/** Where a bench writes its JSON: bench/results/<file>, or bench/results/smoke/<file> in a smoke run. */
export function resultsFile(file: string): string {
  return join(RESULTS_DIR, file);
}

/** Writes a run's report as JSON to `file` (from resultsFile) and says where. */
export function writeResults(file: string, report: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results: ${file}`);
}

/** The integer setting `name` (at least `minimum` when set), else its full or its smoke size. */
export function benchInt(name: string, full: number, smoke: number, minimum = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return SMOKE ? smoke : full;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < minimum) throw new Error(`${name} must be an integer ≥ ${minimum} (got "${raw}")`);
  return value;
}

/** The string setting `name`, else its full or its smoke value. */
export function benchSetting(name: string, full: string, smoke: string): string {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? (SMOKE ? smoke : full) : raw;
}

/** Prints a Markdown table, each column as wide as its widest cell (what every bench's run shows above its JSON). */
export function printMarkdownTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  console.log(`\n${line(header)}\n${line(widths.map((width) => '-'.repeat(width)))}`);
  for (const row of rows) console.log(line(row));
}
