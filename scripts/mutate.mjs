// `pnpm mutate [package…] [--force]`: StrykerJS over the packages that hold the money and trust
// rules (all four by default), one run per package (packages/<name>/stryker.config.mjs,
// stryker.shared.mjs), then each package's mutation score and the total. Runs are incremental;
// `--force` tests every mutant again (an earlier result can hide what a new test now kills).
// Reports: reports/mutation/<name>/index.html. Not part of `pnpm test` or CI. Exits non-zero only
// when a run itself fails.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const PACKAGES = ['domain', 'sdk', 'callback-http', 'providers'];
const strykerFlags = process.argv.slice(2).filter((arg) => arg === '--force');
const chosen = process.argv.slice(2).filter((arg) => arg !== '--force');
for (const name of chosen) {
  if (!PACKAGES.includes(name)) {
    console.error(`unknown package "${name}": choose among ${PACKAGES.join(', ')}`);
    process.exit(2);
  }
}

// Killed and timed-out mutants are detected; survivors and those no test runs are not. Mutants the
// type checker refused, or that crashed the runner, are left out, as Stryker does.
const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

function countsOf(name) {
  const report = JSON.parse(readFileSync(`reports/mutation/${name}/mutation.json`, 'utf8'));
  const counts = { detected: 0, undetected: 0 };
  for (const file of Object.values(report.files)) {
    for (const mutant of file.mutants) {
      if (DETECTED.has(mutant.status)) counts.detected += 1;
      else if (UNDETECTED.has(mutant.status)) counts.undetected += 1;
    }
  }
  return counts;
}

const score = ({ detected, undetected }) => ((100 * detected) / Math.max(1, detected + undetected)).toFixed(2);

let failed = false;
const rows = [];
for (const name of chosen.length > 0 ? chosen : PACKAGES) {
  console.log(`> stryker: packages/${name}`);
  const status = spawnSync('node_modules/.bin/stryker', ['run', `packages/${name}/stryker.config.mjs`, ...strykerFlags], {
    stdio: 'inherit',
  }).status;
  if (status !== 0) {
    failed = true;
    continue;
  }
  rows.push([name, countsOf(name)]);
}

const total = rows.reduce(
  (sum, [, counts]) => ({ detected: sum.detected + counts.detected, undetected: sum.undetected + counts.undetected }),
  { detected: 0, undetected: 0 },
);
for (const [name, counts] of [...rows, ['total', total]]) {
  console.log(`${name.padEnd(14)} ${score(counts).padStart(6)} %  (${counts.detected} detected, ${counts.undetected} undetected)`);
}
process.exit(failed ? 1 : 0);
