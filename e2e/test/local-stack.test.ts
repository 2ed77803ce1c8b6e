// `pnpm demo` as a developer runs it, on ports, a database, a Redis prefix and a folder of its own:
// an app that crashes is restarted while the chain, the database and the other apps keep running.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { findFreePort, requestChainId, TEST_DATABASE_URL } from '@gateway/testkit';
import { waitFor } from './support/wait-for';

const ROOT = join(__dirname, '..', '..');
const id = randomBytes(4).toString('hex');
const stateDir = mkdtempSync(join(tmpdir(), 'local-stack-'));
const database = `gateway_stack_${id}`;
const redisPrefix = `stack-${id}`;
let stack: ChildProcess;
let ports: Record<string, number>;

interface StackFile {
  redis: { prefix: string };
  chain: { rpcUrl: string };
  apps: Record<string, { url: string }>;
}

/** The pid listening on a loopback port, from the kernel's socket table. */
function listenerPid(port: number): number | undefined {
  const out = spawnSync('ss', ['-H', '-ltnp', `sport = :${port}`], { encoding: 'utf8' }).stdout;
  const pid = /pid=(\d+)/.exec(out)?.[1];
  return pid ? Number(pid) : undefined;
}

const ready = (url: string) => fetch(`${url}/readyz`).then((r) => (r.ok ? true : undefined));

beforeAll(async () => {
  ports = {};
  for (const name of ['WALLET_CONTROL_PORT', 'PAYMENT_REDIRECT_PORT', 'SANDBOX_PROVIDER_PORT', 'DEMO_MERCHANT_PORT', 'CHAIN_WATCHER_PORT', 'SETTLEMENT_WORKER_PORT', 'CALLBACK_WORKER_PORT', 'LOCAL_CHAIN_PORT', 'WALLET_CONTROL_METRICS_PORT', 'PAYMENT_REDIRECT_METRICS_PORT', 'SANDBOX_PROVIDER_METRICS_PORT']) {
    ports[name] = await findFreePort();
  }
  stack = spawn(process.execPath, ['--import', 'tsx', 'scripts/local-stack.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
      LOCAL_STATE_DIR: stateDir,
      LOCAL_DATABASE: database,
      LOCAL_REDIS_PREFIX: redisPrefix,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor('stack.json', async () => (existsSync(join(stateDir, 'stack.json')) ? true : undefined), 150_000);
}, 180_000);

afterAll(async () => {
  if (stack && stack.exitCode === null) {
    const exited = new Promise((resolve) => stack.once('exit', resolve));
    stack.kill('SIGTERM');
    await exited;
  }
  const admin = new Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await admin.end();
  const keys = spawnSync('redis-cli', ['--scan', '--pattern', `${redisPrefix}:*`], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  if (keys.length > 0) spawnSync('redis-cli', ['DEL', ...keys]);
  rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

it('uses the Redis prefix it is given, so two stacks on one Redis keep their queues apart', () => {
  const described = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  expect(described.redis.prefix).toBe(redisPrefix);
});

it('restarts a crashed app; the chain, the database and the other apps keep running', async () => {
  const described = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  const paymentUrl = described.apps['payment-redirect']!.url;
  const crashed = listenerPid(ports.PAYMENT_REDIRECT_PORT!);
  expect(crashed).toBeDefined();
  process.kill(crashed!, 'SIGKILL');

  await waitFor('payment-redirect to be restarted', async () => {
    const pid = listenerPid(ports.PAYMENT_REDIRECT_PORT!);
    return pid !== undefined && pid !== crashed ? ready(paymentUrl) : undefined;
  }, 60_000);
  expect(stack.exitCode).toBeNull();
  expect(await requestChainId(described.chain.rpcUrl)).toBe(31337);
  expect(await ready(described.apps['wallet-control']!.url)).toBe(true);
  const admin = new Client({ connectionString: TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${database}`) });
  await admin.connect();
  const { rows } = await admin.query<{ wallets: string }>('SELECT count(*)::text AS wallets FROM wallets');
  await admin.end();
  // The demo order's wallet, created before the crash, is still there.
  expect(Number(rows[0]!.wallets)).toBeGreaterThan(0);
}, 120_000);
