import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import type { Address, Hex } from 'viem';
import { stopProcess } from './app-process';
import { sleep } from './wait-for';

/** The mnemonic anvil derives its funded accounts from (we pass it explicitly, so it cannot drift). */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/** The first accounts of {@link ANVIL_MNEMONIC} (m/44'/60'/0'/0/i); anvil funds each with 10,000 ETH. */
export const anvilAccounts = [
  {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
  {
    address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    privateKey: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  },
  {
    address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    privateKey: '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  },
  {
    address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
    privateKey: '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  },
] as const satisfies readonly { address: Address; privateKey: Hex }[];

export interface StartAnvilOptions {
  /** Defaults to 137 (Polygon), so signatures made here carry the production chain id. */
  chainId?: number;
  /** Seconds per block; without it anvil mines each transaction at once. */
  blockTime?: number;
  /**
   * anvil answers the `finalized` block tag with the head minus twice this (default 32: 64 blocks
   * behind); 0 makes every block final at once.
   */
  slotsInAnEpoch?: number;
  /** How long to wait for the first `eth_chainId` answer. Defaults to 10 s. */
  readyTimeoutMs?: number;
  /** A fixed port (the local stack's 8545); by default a free one is picked. */
  port?: number;
}

export interface RunningAnvil {
  rpcUrl: string;
  port: number;
  chainId: number;
  pid: number;
  /** Terminates anvil and resolves once the process has exited. Safe to call twice. */
  stop(): Promise<void>;
}

const DEFAULT_CHAIN_ID = 137;
const DEFAULT_READY_TIMEOUT_MS = 10_000;
const READY_POLL_INTERVAL_MS = 50;
const STOP_GRACE_MS = 5_000;
const STDERR_TAIL_CHARS = 4_000;
// A port read from the OS can be taken by someone else before anvil binds it; try a fresh one.
const MAX_PORT_ATTEMPTS = 3;

// anvil's npm package ships the binary in one optional package per platform (see its const.mjs).
const platformPackageSuffix: Record<string, Record<string, string>> = {
  linux: { x64: 'linux-amd64', arm64: 'linux-arm64' },
  darwin: { x64: 'darwin-amd64', arm64: 'darwin-arm64' },
  win32: { x64: 'win32-amd64' },
};

/**
 * Path of the anvil binary inside `@foundry-rs/anvil-<platform>` (an optional dependency of
 * `@foundry-rs/anvil`, a dependency of this package). We run the binary itself rather than
 * the `anvil` bin script so that killing the pid we hold kills anvil, with no wrapper left over.
 */
export function resolveAnvilBinary(): string {
  const suffix = platformPackageSuffix[process.platform]?.[process.arch];
  if (!suffix) {
    throw new Error(`anvil: no @foundry-rs/anvil binary package for ${process.platform}/${process.arch}`);
  }
  const platformPackage = `@foundry-rs/anvil-${suffix}`;
  const requireFromAnvil = createRequire(require.resolve('@foundry-rs/anvil/package.json'));
  let manifestPath: string;
  try {
    manifestPath = requireFromAnvil.resolve(`${platformPackage}/package.json`);
  } catch {
    throw new Error(`anvil: ${platformPackage} is not installed (an optional dependency of @foundry-rs/anvil)`);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: Record<string, string> };
  const binary = manifest.bin?.anvil;
  if (!binary) {
    throw new Error(`anvil: ${manifestPath} declares no "anvil" bin`);
  }
  return path.resolve(path.dirname(manifestPath), binary);
}

// Below Linux's ephemeral range (32768–60999): a port the OS hands out for port 0 is also one it
// hands out as the source port of an outgoing connection, and with parallel test files opening
// hundreds of those (PostgreSQL, Redis, HTTP), one took a port between its check and the app's
// listen (EADDRINUSE in CI). Here no outgoing connection is given one of these.
const FREE_PORTS = { from: 20_000, to: 32_767 } as const;
const FREE_PORT_TRIES = 50;
// A free port is only checked, not held, until its app listens: two test files (jest workers) that
// picked the same one, or one file that picked it twice before starting anything (a whole stack's
// ports are found first), collided (EADDRINUSE in CI, 127.0.0.1:28531). So each jest worker picks
// in a slice of the range of its own, and a process never hands out a port twice.
const WORKER_SLICES = 8;
const handedOut = new Set<number>();

/** The ports this process picks from: its jest worker's slice, or the whole range outside jest. */
function portsOfThisProcess(): { from: number; to: number } {
  const worker = Number(process.env.JEST_WORKER_ID);
  if (!Number.isInteger(worker) || worker < 1) return FREE_PORTS;
  const size = Math.floor((FREE_PORTS.to - FREE_PORTS.from + 1) / WORKER_SLICES);
  const from = FREE_PORTS.from + ((worker - 1) % WORKER_SLICES) * size;
  return { from, to: from + size - 1 };
}

/**
 * A port nobody is listening on, below the ephemeral range: a random one of this process's slice
 * that it has not handed out before, checked by listening on it and releasing it.
 */
export async function findFreePort(): Promise<number> {
  const { from, to } = portsOfThisProcess();
  for (let attempt = 0; attempt < FREE_PORT_TRIES; attempt += 1) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`findFreePort: ${FREE_PORT_TRIES} random ports from ${from} to ${to} were all taken or already handed out`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** One `eth_chainId` call over a fresh connection (no keep-alive socket left to hold jest open). */
export function requestChainId(rpcUrl: string, timeoutMs = 1_000): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
  return new Promise((resolve, reject) => {
    const request = http.request(
      rpcUrl,
      { method: 'POST', agent: false, timeout: timeoutMs, headers: { 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          try {
            const reply = JSON.parse(text) as { result?: string };
            if (typeof reply.result !== 'string') throw new Error(`unexpected reply ${text}`);
            resolve(Number.parseInt(reply.result, 16));
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`eth_chainId timed out after ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

function buildAnvilArgs(port: number, chainId: number, { blockTime, slotsInAnEpoch }: StartAnvilOptions): string[] {
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId)];
  args.push('--mnemonic', ANVIL_MNEMONIC, '--silent');
  if (blockTime !== undefined) args.push('--block-time', String(blockTime));
  if (slotsInAnEpoch !== undefined) args.push('--slots-in-an-epoch', String(slotsInAnEpoch));
  return args;
}

/** Keeps the end of anvil's stderr for error messages (with --silent it only writes on failure). */
function captureStderrTail(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  return () => tail.trim();
}

/** anvil could not bind its port: someone took it between findFreePort() and the spawn. */
class AnvilPortTaken extends Error {}

function exitedEarlyError(child: ChildProcess, stderr: string): Error {
  const message = `anvil exited (code ${child.exitCode}, signal ${child.signalCode}) before answering: ${stderr || 'no output'}`;
  return /address already in use/i.test(stderr) ? new AnvilPortTaken(message) : new Error(message);
}

interface ReadinessProbe {
  child: ChildProcess;
  rpcUrl: string;
  chainId: number;
  timeoutMs: number;
  stderrTail: () => string;
  /** Settles once stderr is drained; 'exit' can fire before the last stderr chunk is read. */
  stdioClosed: Promise<void>;
}

/** Polls `eth_chainId` until anvil answers with the expected id, exits, or the timeout passes. */
async function waitUntilReady({ child, rpcUrl, chainId, timeoutMs, stderrTail, stdioClosed }: ReadinessProbe): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stdioClosed;
      throw exitedEarlyError(child, stderrTail());
    }
    try {
      const answered = await requestChainId(rpcUrl);
      if (answered !== chainId) throw new Error(`${rpcUrl} answered chain id ${answered}, expected ${chainId}`);
      return;
    } catch (error) {
      lastError = error;
    }
    await sleep(READY_POLL_INTERVAL_MS);
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(`anvil did not answer eth_chainId on ${rpcUrl} within ${timeoutMs} ms (last error: ${reason})`);
}

type AnvilSettings = StartAnvilOptions & Required<Pick<StartAnvilOptions, 'chainId' | 'readyTimeoutMs'>>;

async function launchAnvil(binary: string, options: AnvilSettings): Promise<RunningAnvil> {
  const port = options.port ?? (await findFreePort());
  const rpcUrl = `http://127.0.0.1:${port}`;
  const child = spawn(binary, buildAnvilArgs(port, options.chainId, options), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  await spawned;
  // A failed kill() is reported as 'error'; without a listener it would crash the test process.
  child.on('error', () => undefined);
  const stderrTail = captureStderrTail(child);
  const stdioClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    const probe = { child, rpcUrl, chainId: options.chainId, timeoutMs: options.readyTimeoutMs, stderrTail, stdioClosed };
    await waitUntilReady(probe);
  } catch (error) {
    await stopProcess(child, STOP_GRACE_MS);
    throw error;
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error('anvil: spawned without a pid');
  return { rpcUrl, port, chainId: options.chainId, pid, stop: () => stopProcess(child, STOP_GRACE_MS) };
}

/**
 * Starts a fresh anvil on a free port and resolves once it answers JSON-RPC.
 * Always `await stop()` (e.g. in afterAll), or the test run keeps a child process alive.
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<RunningAnvil> {
  const binary = resolveAnvilBinary();
  const settings: AnvilSettings = {
    ...options,
    chainId: options.chainId ?? DEFAULT_CHAIN_ID,
    readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
  };
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launchAnvil(binary, settings);
    } catch (error) {
      if (!(error instanceof AnvilPortTaken) || options.port !== undefined || attempt >= MAX_PORT_ATTEMPTS) throw error;
    }
  }
}
