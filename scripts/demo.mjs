// `pnpm demo`: installs the locked dependencies if needed, then starts the local stack.
// Plain Node on purpose: it must run on a fresh clone before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const step = (command, args) => {
  const { status } = spawnSync(command, args, { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
};

step('bash', ['scripts/ensure-services.sh']);
if (!existsSync('node_modules/.pnpm/lock.yaml') && !existsSync('node_modules/.modules.yaml')) {
  step('pnpm', ['install', '--frozen-lockfile', '--trust-lockfile']);
}
step(process.execPath, ['--import', 'tsx', 'scripts/local-stack.ts', ...process.argv.slice(2)]);
