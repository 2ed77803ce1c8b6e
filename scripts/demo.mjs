// `npm run demo` (or `pnpm demo`): makes sure PostgreSQL and Redis answer, installs the locked
// dependencies if needed (with the pinned pnpm, brought by npx when it is not installed), then
// starts the local stack. Plain Node on purpose: it must run on a fresh clone before anything is installed.
import { spawnSync } from 'node:child_process';
import { ensureDependencies } from './package-manager.mjs';
import { ensureSupportedNode } from './node-runtime.mjs';

ensureSupportedNode();

const step = (command, args) => {
  const { status } = spawnSync(command, args, { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
};

step('bash', ['scripts/ensure-services.sh']);
ensureDependencies();
step(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', 'scripts/local-stack.ts', ...process.argv.slice(2)]);
