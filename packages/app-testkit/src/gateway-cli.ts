import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const CLI_MAIN = join(ROOT, 'apps', 'cli', 'src', 'main.ts');

export interface CliRun {
  code: number | null;
  /** The signal that ended it (a test's crash point kills it with SIGKILL), or null. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they came, interleaved. */
  output: string;
}

/** `gateway <args>` as a process, from the sources (as `pnpm gateway` runs it), with only `env` (and PATH). */
export function runGateway(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliRun> {
  const child = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', CLI_MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { stdout: '', stderr: '', output: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    run.stdout += chunk.toString();
    run.output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    run.stderr += chunk.toString();
    run.output += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ...run });
    });
  });
}
