// The pnpm that runs this workspace, for `npm run demo` and `npm test` on a machine with only Node:
// the pinned version when it is on PATH, else the same version through npx. npx was chosen over
// corepack: on this registry corepack needs COREPACK_INTEGRITY_KEYS=0 to accept pnpm, took 1.8–2.1 s
// to fetch it against npx's 0.7–1.0 s, and no longer ships with Node from version 25.
// Plain Node on purpose: it runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const PINNED = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).packageManager; // "pnpm@12.21.0"
const PINNED_VERSION = PINNED.slice('pnpm@'.length);

function pinnedPnpmOnPath() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: false });
  return probe.status === 0 && probe.stdout.trim() === PINNED_VERSION;
}

/** The command and leading arguments that run the pinned pnpm. */
export const pnpm = pinnedPnpmOnPath() ? ['pnpm'] : ['npx', '--yes', PINNED];

/** Runs pnpm with `args` at the repository root; its exit status (1 when it could not start). */
export function runPnpm(args, env = process.env) {
  const [command, ...lead] = pnpm;
  const { status, error } = spawnSync(command, [...lead, ...args], { cwd: ROOT, stdio: 'inherit', env });
  if (error) console.error(`could not start ${pnpm.join(' ')}: ${error.message}`);
  return status ?? 1;
}

/** Installs the locked dependencies when this clone has none yet; exits on failure. */
export function ensureDependencies() {
  if (existsSync(join(ROOT, 'node_modules', '.modules.yaml'))) return;
  const status = runPnpm(['install', '--frozen-lockfile', '--trust-lockfile']);
  if (status !== 0) process.exit(status);
}
