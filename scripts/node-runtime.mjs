// The Node that runs this workspace: the version in .node-version, the one the images run. Node 20
// is past its end of life and dependencies (cookie, content-disposition, Stryker's prompts) ask for
// 22.22 or later. `npm test` and `npm run demo` start on whatever Node the machine has; when it is
// older than the pinned line they fetch the pinned build once, from the npm registry's
// `node-<platform>-<arch>` package (npm checks its integrity), and run again under it, with its
// bin first on PATH so every child (jest workers, tsx, the apps, npx) runs it too.
// Plain Node on purpose: it runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
/** The version fetched when the machine's is too old, e.g. "22.23.3": the one the images run. */
export const PINNED_NODE = readFileSync(join(ROOT, '.node-version'), 'utf8').trim();
/** The oldest supported version, from package.json's engines (">=22.22.2"). */
const OLDEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node.replace(/^>=/, '');

/** Whether `version` is `oldest` or later (plain x.y.z versions). */
export function isSupported(version, oldest = OLDEST) {
  const [have, want] = [version, oldest].map((text) => text.split('.').map(Number));
  for (let part = 0; part < 3; part += 1) if (have[part] !== want[part]) return have[part] > want[part];
  return true;
}

function runtimeFolder() {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'usdc-card-gateway', `node-v${PINNED_NODE}-${process.platform}-${process.arch}`);
}

/** The pinned node binary, fetched into the user's cache the first time. */
function pinnedNodeBinary() {
  const folder = runtimeFolder();
  const binary = join(folder, 'bin', 'node');
  if (existsSync(binary)) return binary;
  const packageName = `node-${process.platform}-${process.arch}@${PINNED_NODE}`;
  console.log(`Node ${process.versions.node} is older than this project supports (${OLDEST} or later): fetching ${packageName}`);
  const staging = `${folder}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const pack = spawnSync('npm', ['pack', '--silent', packageName], {
    cwd: staging,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const tarball = readdirSync(staging).find((name) => name.endsWith('.tgz'));
  if (pack.status !== 0 || tarball === undefined) {
    rmSync(staging, { recursive: true, force: true });
    console.error(`could not fetch ${packageName}: install Node ${OLDEST} or later (${PINNED_NODE} is what the images run) and run again`);
    process.exit(1);
  }
  const untar = spawnSync('tar', ['-xzf', tarball, '--strip-components=1', 'package/bin/node'], { cwd: staging, stdio: 'inherit' });
  rmSync(join(staging, tarball));
  if (untar.status !== 0) process.exit(1);
  mkdirSync(dirname(folder), { recursive: true });
  // Renamed into place whole: a run stopped half-way leaves no half runtime behind. A run started
  // beside this one may have put its copy there first: then that one is used.
  try {
    renameSync(staging, folder);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(binary)) throw error;
  }
  return binary;
}

/**
 * Returns when this process already runs a supported Node; otherwise runs this same script again
 * under the pinned Node and exits with its status.
 */
export function ensureSupportedNode() {
  if (isSupported(process.versions.node)) return;
  const binary = pinnedNodeBinary();
  const env = { ...process.env, PATH: `${dirname(binary)}${delimiter}${process.env.PATH ?? ''}` };
  const { status, signal } = spawnSync(binary, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env });
  process.exit(status ?? (signal ? 1 : 0));
}
