// A previous release of the gateway, ready to run beside this checkout: its files at its commit (git
// archive, so this clone's worktrees and branches are left alone), its locked dependencies, and its
// apps built into dist/ as its images run them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppRelease } from './gateway-stack';

const ROOT = join(__dirname, '..', '..', '..');
/** The one place the upgrade test and docs/upgrades.md take the previous release from. */
export const UPGRADE_BASELINE_FILE = join(ROOT, 'e2e', 'upgrade-baseline.json');

export interface UpgradeBaseline {
  commit: string;
  what: string;
}

export function readUpgradeBaseline(): UpgradeBaseline {
  return JSON.parse(readFileSync(UPGRADE_BASELINE_FILE, 'utf8')) as UpgradeBaseline;
}

/** What preparing the release cost, step by step, in milliseconds. */
export interface ReleaseTimings {
  extract: number;
  install: number;
  build: number;
}

export interface ReleaseCheckout extends AppRelease {
  commit: string;
  /** How its dependencies were installed: from the pnpm store alone, or from the registry where the store lacked some. */
  installedFrom: 'store' | 'registry';
  timings: ReleaseTimings;
  remove(): void;
}

function run(command: string, args: string[], cwd: string, input?: Buffer): { status: number; output: string } {
  const result = spawnSync(command, args, { cwd, input, encoding: 'buffer', maxBuffer: 512 * 1024 * 1024, env: process.env });
  const output = `${result.stdout?.toString() ?? ''}${result.stderr?.toString() ?? ''}${result.error ? String(result.error) : ''}`;
  return { status: result.status ?? 1, output };
}

function mustRun(what: string, command: string, args: string[], cwd: string): void {
  const { status, output } = run(command, args, cwd);
  if (status !== 0) throw new Error(`${what} failed (${command} ${args.join(' ')}, exit ${status}):\n${output.slice(-4000)}`);
}

/** The pinned pnpm: the one on PATH when it is that version, else the same version through npx (as scripts/package-manager.mjs). */
function pnpmCommand(): string[] {
  const { packageManager } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string };
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() === packageManager.slice('pnpm@'.length) ? ['pnpm'] : ['npx', '--yes', packageManager];
}

/**
 * Extracts `commit` into a temporary folder, installs its locked dependencies and builds its apps
 * and the operator CLI. Fails with what to do when this clone does not hold the commit (a shallow
 * clone: CI clones with its whole history).
 */
export function prepareRelease(commit: string, apps: readonly string[]): ReleaseCheckout {
  if (run('git', ['cat-file', '-e', `${commit}^{commit}`], ROOT).status !== 0) {
    throw new Error(
      `the upgrade baseline ${commit} (${UPGRADE_BASELINE_FILE}) is not in this clone: a shallow clone? ` +
        'fetch the whole history (git fetch --unshallow) or clone without --depth',
    );
  }
  const root = mkdtempSync(join(tmpdir(), `gateway-${commit.slice(0, 8)}-`));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    let started = Date.now();
    const archive = spawnSync('git', ['archive', '--format=tar', commit], { cwd: ROOT, maxBuffer: 1024 * 1024 * 1024 });
    if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.toString()}`);
    const { status: tarStatus, output: tarOutput } = run('tar', ['-x', '-C', root], root, archive.stdout);
    if (tarStatus !== 0) throw new Error(`tar failed: ${tarOutput}`);
    const extract = Date.now() - started;

    // From the store this checkout's install filled; a store that lacks a package the release
    // locked (a cold store, a dependency changed since) gets it from the registry.
    started = Date.now();
    const [pnpm = 'pnpm', ...lead] = pnpmCommand();
    const install = [...lead, 'install', '--frozen-lockfile', '--trust-lockfile'];
    let installedFrom: ReleaseCheckout['installedFrom'] = 'store';
    if (run(pnpm, [...install, '--offline'], root).status !== 0) {
      installedFrom = 'registry';
      mustRun("installing the release's locked dependencies", pnpm, install, root);
    }
    const installTime = Date.now() - started;

    started = Date.now();
    mustRun("building the release's apps", join(root, 'node_modules', '.bin', 'tsc'), ['-b', ...apps.map((app) => `apps/${app}`)], root);
    const build = Date.now() - started;
    return { root, runtime: 'dist', commit, installedFrom, timings: { extract, install: installTime, build }, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
