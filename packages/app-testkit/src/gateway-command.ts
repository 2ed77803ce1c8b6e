import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface GatewayCommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const REPOSITORY_ROOT = join(__dirname, '..', '..', '..');

/**
 * `gateway <args>` as an operator runs it: the CLI from its sources, from the repository root,
 * with exactly `env` (pass process.env in it for what the CLI needs of the machine's own).
 */
export function runGatewayCommand(args: readonly string[], env: NodeJS.ProcessEnv): Promise<GatewayCommandRun> {
  const child = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', 'apps/cli/src/main.ts', ...args], {
    cwd: REPOSITORY_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
