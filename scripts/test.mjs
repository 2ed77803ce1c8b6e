// `npm test` (or `pnpm test`): makes sure PostgreSQL and Redis answer and the locked dependencies
// are installed, then the type check (tsc -b over every project), the lint (Biome), the import
// circles check, every jest project once, and one plain closing line ("N passed, N failed") that CI
// reads, since it does not read jest's own summary. A failed type check, lint or circles check
// counts as one failure each.
// Plain Node on purpose: it must run on a fresh clone before anything is installed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDependencies } from './package-manager.mjs';
import { ensureSupportedNode } from './node-runtime.mjs';

ensureSupportedNode();

const ROOT = join(import.meta.dirname, '..');
const resultsFile = join(ROOT, '.local', 'test-results.json');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
const run = (command, args) =>
  spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } }).status ?? 1;

if (run('bash', ['scripts/ensure-services.sh']) !== 0) process.exit(1);
ensureDependencies();
mkdirSync(join(ROOT, '.local'), { recursive: true });
rmSync(resultsFile, { force: true });

console.log('> typecheck (tsc -b)');
const typecheck = run(bin('tsc'), ['-b']);

console.log('> lint (biome check)');
const lint = run(bin('biome'), ['check', '--error-on-warnings']);

console.log('> import circles (scripts/import-cycles.mjs)');
const circles = run(process.execPath, ['scripts/import-cycles.mjs']);

console.log('> jest');
run(bin('jest'), ['--maxWorkers=2', '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)]);

let passed = 0;
let failed = 0;
try {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  passed = results.numPassedTests;
  // A suite that fails to load has no failed tests but must still fail the run.
  failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
} catch {
  failed = 1;
}
if (typecheck !== 0) {
  console.log('typecheck failed');
  failed += 1;
}
if (lint !== 0) {
  console.log('lint failed');
  failed += 1;
}
if (circles !== 0) {
  console.log('import circles found');
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
