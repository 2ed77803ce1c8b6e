import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const APP_DIR = path.resolve(__dirname, '..', '..');

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the exit signal (or code) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it wrote, for a failing test's message. */
  output(): string;
  /** SIGTERM (graceful shutdown), then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts the real settlement worker (src/main.ts) as a child process, as production runs it. */
export function spawnWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', 'src/main.ts'], {
    cwd: APP_DIR,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
