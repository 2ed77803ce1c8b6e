// `pnpm test`: typecheck, then every jest project once, then one plain closing line
// ("N passed, N failed") that CI reads, since it does not read jest's own summary.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

const resultsFile = '.local/test-results.json';
mkdirSync('.local', { recursive: true });
rmSync(resultsFile, { force: true });

const run = (command, args) => spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' } }).status ?? 1;

console.log('> typecheck');
const typecheck = run('pnpm', ['exec', 'tsc', '-p', 'tsconfig.json', '--noEmit']);

console.log('> jest');
run('pnpm', ['exec', 'jest', '--maxWorkers=2', '--json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)]);

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
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
