// Every shell command block of the documentation (every tracked Markdown page) runs here, as the
// page shows it, against the local stack `npm run demo` starts (on ports, a database, a Redis and a
// folder of its own), in a scratch directory, with `pnpm` and `gateway` those of this checkout; or it
// carries a marker that says why not (docs/tests.md, "Commands in the documentation").
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { findFreePort, type RunningRedis, startRedisServer, TEST_DATABASE_URL, waitFor } from '@gateway/testkit';
import { consoleSteps, expectedOutputPatterns, type FencedBlock, isRunnable, readFencedBlocks } from './support/fenced-blocks';

const ROOT = join(__dirname, '..', '..', '..');
const PAGES = spawnSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8' })
  .stdout.split('\n')
  .filter((file) => file !== '' && existsSync(join(ROOT, file)));
const readings = PAGES.map((file) => readFencedBlocks(file, readFileSync(join(ROOT, file), 'utf8')));
const runnable = readings.flatMap((reading) => reading.blocks.filter(isRunnable));
/** A block that hangs (a server left running, `tail -f`) fails rather than holding the run. */
const BLOCK_TIMEOUT_MS = 60_000;

/** The local stack's default ports (scripts/local-stack.ts), which the pages show, by the setting that moves each. */
const DEFAULT_PORTS = {
  WALLET_CONTROL_PORT: 3100,
  PAYMENT_REDIRECT_PORT: 3200,
  SANDBOX_PROVIDER_PORT: 3300,
  DEMO_MERCHANT_PORT: 3400,
  CHAIN_WATCHER_PORT: 3101,
  SETTLEMENT_WORKER_PORT: 3102,
  CALLBACK_WORKER_PORT: 3103,
  WALLET_CONTROL_METRICS_PORT: 3104,
  PAYMENT_REDIRECT_METRICS_PORT: 3105,
  SANDBOX_PROVIDER_METRICS_PORT: 3106,
  LOCAL_CHAIN_PORT: 8545,
};
/** The payout address and demo order of the README's "See a payment settle without a browser". */
const README_PAYOUT_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

const id = randomBytes(4).toString('hex');
const database = `gateway_docs_${id}`;
const redisPrefix = `docs-${id}`;
let stateDir: string;
let scratch: string;
let tools: string;
let redis: RunningRedis;
let stack: ChildProcess | undefined;
let stackLog = '';
let ports: Record<keyof typeof DEFAULT_PORTS, number>;
let env: NodeJS.ProcessEnv;
/** What a page shows in place of a value a reader takes from an earlier answer, and that value here. */
let placeholders: [string, string][];

interface StackFile {
  database: { url: string };
  redis: { url: string; prefix: string; apps: Record<string, string> };
  chain: { chainId: number };
}

it('every command block of every page is run here, or marked with the reason it is not', () => {
  expect(PAGES).toEqual(expect.arrayContaining(['README.md', 'docs/operations.md', 'docs/tests.md']));
  expect(readings.flatMap((reading) => reading.problems)).toEqual([]);
  // A transcript's shape is known before any stack starts.
  for (const block of runnable.filter(({ language }) => language === 'console')) expect(() => consoleSteps(block)).not.toThrow();
  // The run below covers the pages: a page's runnable blocks are never dropped on the way.
  expect(runnable.length).toBeGreaterThan(0);
});

it("moves a page's addresses to the stack's ports once, even to a port that begins with another default", () => {
  // CI's case: payment-redirect on 31012, then the chain watcher's 3101 moved to 29627 (the old move gave 296272).
  const moved = { ...DEFAULT_PORTS, PAYMENT_REDIRECT_PORT: 31012, CHAIN_WATCHER_PORT: 29627 };
  expect(movedToStack('curl 127.0.0.1:3200/x 127.0.0.1:3101 http%3A%2F%2F127.0.0.1%3A3200 127.0.0.1:31010', moved)).toBe(
    'curl 127.0.0.1:31012/x 127.0.0.1:29627 http%3A%2F%2F127.0.0.1%3A31012 127.0.0.1:31010',
  );
});

describe('the runnable blocks, in page order, against the local stack', () => {
  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'docs-stack-'));
    scratch = mkdtempSync(join(tmpdir(), 'docs-scratch-'));
    tools = mkdtempSync(join(tmpdir(), 'docs-tools-'));
    // The stack makes its apps' Redis ACL users on the Redis it is given: never the shared one's.
    redis = await startRedisServer();
    ports = { ...DEFAULT_PORTS };
    for (const name of Object.keys(DEFAULT_PORTS) as (keyof typeof DEFAULT_PORTS)[]) ports[name] = await findFreePort();
    // As the README starts it: `npm run demo` is `node scripts/demo.mjs`.
    stack = spawn(process.execPath, ['scripts/demo.mjs'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
        LOCAL_STATE_DIR: stateDir,
        LOCAL_DATABASE: database,
        LOCAL_REDIS_PREFIX: redisPrefix,
        REDIS_URL: redis.url,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      // A process group of its own, stopped as Ctrl-C stops it: demo.mjs waits on the stack, which stops its apps.
      detached: true,
    });
    stack.stderr?.on('data', (chunk: Buffer) => {
      stackLog = `${stackLog}${chunk}`.slice(-4000);
    });
    const started = stack;
    await Promise.race([
      waitFor('the local stack to write stack.json', () => existsSync(join(stateDir, 'stack.json')) || undefined, 200_000, 250),
      new Promise((_, reject) => started.once('exit', (code) => reject(new Error(`the local stack exited (${code}):\n${stackLog}`)))),
    ]);
    const described = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;

    // The scratch directory holds what a command writes (`--out ledger.csv`); its .local is this
    // stack's, where the pages look for the stack's files. Never a copy of the checkout: pnpm run
    // in a folder that links the checkout's node_modules relinks them there.
    symlinkSync(stateDir, join(scratch, '.local'));
    // `pnpm <script>` as the pages run it, from the checkout (the pinned pnpm, as npm test finds it);
    // `gateway` as the operator runs it (its image's entry point): the CLI of this checkout, here.
    const tsxLoader = join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs');
    const cli = join(ROOT, 'apps', 'cli', 'src', 'main.ts');
    writeTool('pnpm', `exec ${pinnedPnpm().join(' ')} --dir "${ROOT}" "$@"`);
    writeTool('gateway', `exec "${process.execPath}" --conditions=@gateway/source --import "file://${tsxLoader}" "${cli}" "$@"`);
    // What Operations tells the operator to set for `gateway`: the owner's DATABASE_URL, the Redis
    // user with the queues (the local stack's operator user) and its prefix, CHAIN_ID (not 137 here).
    env = {
      ...process.env,
      PATH: [tools, dirname(process.execPath), process.env.PATH].join(':'),
      DATABASE_URL: described.database.url,
      REDIS_URL: described.redis.apps.operator ?? described.redis.url,
      REDIS_PREFIX: described.redis.prefix,
      CHAIN_ID: String(described.chain.chainId),
      LOCAL_STATE_DIR: stateDir,
    };

    // The README's demo order (order=42), made now so that the values a reader copies from its
    // answer (`0xABC…`, `local1.…`) are known before the block that uses them runs; Create Wallet
    // answers the same wallet to the block's own request.
    const callback = `http://127.0.0.1:${ports.DEMO_MERCHANT_PORT}/ipn?order=42`;
    const created = await fetch(
      `http://127.0.0.1:${ports.WALLET_CONTROL_PORT}/control/wallet.php?${new URLSearchParams({ address: README_PAYOUT_ADDRESS, callback })}`,
    );
    expect(created.status).toBe(200);
    const wallet = (await created.json()) as { address_in: string; polygon_address_in: string; ipn_token: string };
    placeholders = [
      ['0xABC…', wallet.polygon_address_in],
      ['local1.Jf…', wallet.address_in],
      ['local1.…', wallet.address_in],
      // api.md's made-up ipn_token: the status and resend of this order.
      ['IJM9GLtXq0m1cS3aZl9m4b8wYpV2Rr7o', wallet.ipn_token],
      [
        'process-payment.php?…',
        `process-payment.php?address=${wallet.address_in}&amount=25&provider=moonpay&email=jane%40shop.io&currency=USD`,
      ],
      ['0x5290…9ee7', README_PAYOUT_ADDRESS],
    ];
  }, 240_000);

  afterAll(async () => {
    if (stack && stack.exitCode === null) {
      const exited = new Promise((resolve) => stack?.once('exit', resolve));
      process.kill(-stack.pid!, 'SIGINT');
      await exited;
    }
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.end();
    await redis?.stop();
    for (const folder of [stateDir, scratch, tools]) if (folder) rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  it.each(runnable.map((block) => [`${block.file}:${block.line}`, block] as const))(
    '%s runs as written',
    (_where, block) => {
      if (block.language === 'console') {
        for (const step of consoleSteps(block)) {
          const stdout = runCommand(block, step.command);
          for (const line of expectedOutputPatterns(step.expected.map(onThisStack))) expect(stdout).toMatch(line);
        }
      } else {
        runCommand(block, block.text);
      }
    },
    BLOCK_TIMEOUT_MS + 10_000,
  );
});

function writeTool(name: string, command: string): void {
  writeFileSync(join(tools, name), `#!/bin/sh\n${command}\n`);
  chmodSync(join(tools, name), 0o755);
}

/**
 * The pinned pnpm (package.json's packageManager): the one on PATH when it is that version, else
 * through npx, as scripts/package-manager.mjs chooses for `npm test` (CI keeps pnpm off PATH).
 */
function pinnedPnpm(): string[] {
  const pinned = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string }).packageManager;
  const onPath = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  return onPath.status === 0 && onPath.stdout.trim() === pinned.slice('pnpm@'.length) ? [firstOnPath('pnpm')] : ['npx', '--yes', pinned];
}

function firstOnPath(name: string): string {
  return spawnSync('bash', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
}

/** The local stack's addresses in a page (127.0.0.1:3100 …) moved to this stack's ports. */
function onThisStack(text: string): string {
  return movedToStack(text, ports);
}

/**
 * A page's addresses on the default ports moved to `moved`, in one pass: a free port may begin with a
 * default one (31012 begins with 3101), and must not be moved again.
 */
function movedToStack(text: string, moved: Record<keyof typeof DEFAULT_PORTS, number>): string {
  const movedTo = new Map(Object.entries(DEFAULT_PORTS).map(([name, port]) => [String(port), moved[name as keyof typeof DEFAULT_PORTS]]));
  return text.replace(/127\.0\.0\.1(:|%3A)(\d+)/g, (whole, colon: string, port: string) => {
    const to = movedTo.get(port);
    return to === undefined ? whole : `127.0.0.1${colon}${to}`;
  });
}

/**
 * Runs a command (or a whole block) with bash, stopping at the first that fails, in the scratch
 * checkout; fails on a non-zero exit, and on an API error in its answer that the page does not show.
 */
function runCommand(block: FencedBlock, command: string): string {
  const script = placeholders.reduce((text, [shown, value]) => text.replaceAll(shown, value), onThisStack(command));
  const where = `${block.file}:${block.line}`;
  const elided = script.split('\n').find((line) => !line.trimStart().startsWith('#') && line.split('#')[0]!.includes('…'));
  if (elided) throw new Error(`${where}: "${elided.trim()}" elides a value (…) the test has no value for: add it to placeholders`);
  const run = spawnSync('bash', ['-e', '-c', script], { cwd: scratch, env, encoding: 'utf8', timeout: BLOCK_TIMEOUT_MS });
  const report = `${where}\n$ ${script}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
  if (run.error || run.status !== 0) throw new Error(`exit ${run.status ?? run.signal ?? run.error?.message}: ${report}`);
  if (block.language !== 'console' && run.stdout.includes('"status":"error"'))
    throw new Error(`the API answered an error the page does not show: ${report}`);
  return run.stdout;
}
