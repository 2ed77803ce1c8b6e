import { spawn } from 'node:child_process';
import path from 'node:path';

const APP_DIR = path.resolve(__dirname, '..', '..');
// The operator CLI (apps/cli), from its sources, as `pnpm gateway …` runs it.
const CLI = path.resolve(APP_DIR, '..', 'cli', 'src', 'main.ts');

export interface CommandRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they came, interleaved. */
  output: string;
}

/** `gateway <args>` as an operator runs it, from the settlement worker's folder, with `env` (and PATH) only. */
export function gatewayCommand(args: string[], env: Record<string, string>): Promise<CommandRun> {
  const child = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', CLI, ...args], {
    cwd: APP_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
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
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, ...run })));
}
