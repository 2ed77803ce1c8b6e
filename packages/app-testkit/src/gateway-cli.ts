import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const CLI_MAIN = join(ROOT, 'apps', 'cli', 'src', 'main.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `gateway <args>` as a process, from the sources (as `pnpm gateway` runs it), with only `env` (and PATH). */
export function runGateway(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliRun> {
  const child = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', CLI_MAIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
