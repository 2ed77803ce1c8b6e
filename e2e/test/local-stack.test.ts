// `pnpm demo` as a developer runs it, on ports, a database, a Redis prefix and a folder of its own:
// an app that crashes is restarted while the chain, the database and the other apps keep running.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import IORedis from 'ioredis';
import { findFreePort, requestChainId, startRedisServer, TEST_DATABASE_URL, type RunningRedis, waitFor } from '@gateway/testkit';

const ROOT = join(__dirname, '..', '..');
const id = randomBytes(4).toString('hex');
const stateDir = mkdtempSync(join(tmpdir(), 'local-stack-'));
const database = `gateway_stack_${id}`;
const redisPrefix = `stack-${id}`;
let stack: ChildProcess;
let ports: Record<string, number>;
// A Redis of this test's own: the stack makes its apps' ACL users on the Redis it is given, and the
// shared Redis's users are never changed by a test.
let redis: RunningRedis;

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
  redis = await startRedisServer();
  ports = {};
  for (const name of [
    'WALLET_CONTROL_PORT',
    'PAYMENT_REDIRECT_PORT',
    'SANDBOX_PROVIDER_PORT',
    'DEMO_MERCHANT_PORT',
    'CHAIN_WATCHER_PORT',
    'SETTLEMENT_WORKER_PORT',
    'CALLBACK_WORKER_PORT',
    'LOCAL_CHAIN_PORT',
    'WALLET_CONTROL_METRICS_PORT',
    'PAYMENT_REDIRECT_METRICS_PORT',
    'SANDBOX_PROVIDER_METRICS_PORT',
  ]) {
    ports[name] = await findFreePort();
  }
  stack = spawn(process.execPath, ['--conditions=@gateway/source', '--import', 'tsx', 'scripts/local-stack.ts'], {
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
  await redis?.stop();
  rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

it('uses the Redis prefix it is given, so two stacks on one Redis keep their queues apart', () => {
  const described = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  expect(described.redis.prefix).toBe(redisPrefix);
});

it('connects each app to Redis as an ACL user of its own, named after the prefix', async () => {
  const look = new IORedis(redis.url);
  try {
    const clients = String(await look.call('CLIENT', 'LIST'));
    const users = new Set([...clients.matchAll(/ user=(\S+)/g)].map((match) => match[1]));
    for (const app of ['wallet-control', 'payment-redirect', 'chain-watcher', 'settlement-worker', 'callback-worker'])
      expect([app, users.has(`${redisPrefix}-${app}`)]).toEqual([app, true]);
  } finally {
    look.disconnect();
  }
});

it("connects each app as a login user of its own, a member of its app's role only", async () => {
  // /readyz asks PostgreSQL: every app has a connection open (an idle one closes after 30 s).
  const described = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  for (const app of Object.values(described.apps)) expect(await ready(app.url)).toBe(true);
  const admin = new Client({ connectionString: TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${database}`) });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ app: string; login: string; member_of: string[] }>(
      `SELECT DISTINCT a.application_name AS app, a.usename AS login,
              ARRAY(SELECT r.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
                WHERE m.member = a.usesysid)::text[] AS member_of
       FROM pg_stat_activity a WHERE a.datname = $1 AND a.application_name <> '' AND a.usename <> 'postgres'
       ORDER BY 1`,
      [database],
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { app: 'wallet-control', login: 'gateway_wallet_control_login', member_of: ['gateway_wallet_control'] },
        { app: 'payment-redirect', login: 'gateway_payment_redirect_login', member_of: ['gateway_payment_redirect'] },
        { app: 'chain-watcher', login: 'gateway_chain_watcher_login', member_of: ['gateway_chain_watcher'] },
        { app: 'settlement-worker', login: 'gateway_settlement_worker_login', member_of: ['gateway_settlement_worker'] },
        { app: 'callback-worker', login: 'gateway_callback_worker_login', member_of: ['gateway_callback_worker'] },
        // Not part of the gateway: no role of the gateway's.
        { app: 'sandbox-provider', login: 'gateway_sandbox_provider_login', member_of: [] },
      ]),
    );
  } finally {
    await admin.end();
  }
});

it('restarts a crashed app; the chain, the database and the other apps keep running', async () => {
  const described = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  const paymentUrl = described.apps['payment-redirect']!.url;
  const crashed = listenerPid(ports.PAYMENT_REDIRECT_PORT!);
  expect(crashed).toBeDefined();
  process.kill(crashed!, 'SIGKILL');

  await waitFor(
    'payment-redirect to be restarted',
    async () => {
      const pid = listenerPid(ports.PAYMENT_REDIRECT_PORT!);
      return pid !== undefined && pid !== crashed ? ready(paymentUrl) : undefined;
    },
    60_000,
  );
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

it("refuses the review's hijack: the demo order's callback URL registered with another payout address gets 409", async () => {
  const described = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  const admin = new Client({ connectionString: TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${database}`) });
  await admin.connect();
  const { rows } = await admin.query<{ callback_url: string }>('SELECT callback_url FROM wallets ORDER BY id LIMIT 1');
  await admin.end();
  const attacker = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
  const query = new URLSearchParams({ address: attacker, callback: rows[0]!.callback_url });
  const hijack = await fetch(`${described.apps['wallet-control']!.url}/control/wallet.php?${query}`);
  expect(hijack.status).toBe(409);
  expect(await hijack.json()).toMatchObject({ code: 'callback_registered_elsewhere', param: 'callback' });
});

it("refuses issue 22's attack on the local stack's default settings: steps 1-3 end in a 4xx", async () => {
  const described = JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  const admin = new Client({ connectionString: TEST_DATABASE_URL.replace(/\/[^/]*$/, `/${database}`) });
  await admin.connect();
  const { rows } = await admin.query<{ callback_url: string; payout_address: string }>(
    'SELECT callback_url, payout_address FROM wallets ORDER BY id LIMIT 1',
  );
  await admin.end();
  const [{ callback_url: callback, payout_address: shop } = { callback_url: '', payout_address: '' }] = rows;
  const attacker = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
  const call = async (path: string, query: Record<string, string>) => {
    const response = await fetch(`${described.apps['wallet-control']!.url}/control/${path}?${new URLSearchParams(query)}`);
    return { status: response.status, body: (await response.json()) as { code: string } };
  };
  // 2. the demo order's callback with `&x=1` and another payout address
  expect(await call('wallet.php', { address: attacker, callback: `${callback}&x=1` })).toMatchObject({
    status: 409,
    body: { code: 'callback_registered_elsewhere' },
  });
  // 3. the shop's own payout address, that variant, an affiliate of the attacker's at 99%
  const split = { address: shop, callback: `${callback}&x=1`, affiliate: attacker };
  expect(await call('custom-affiliate.php', { ...split, merchant_fee: '0', affiliate_fee: '0.99' })).toMatchObject({
    status: 400,
    body: { code: 'invalid_parameter' },
  });
  expect(await call('custom-affiliate.php', { ...split, merchant_fee: '0.0001', affiliate_fee: '0.9899' })).toMatchObject({
    status: 403,
    body: { code: 'affiliate_consent_required' },
  });
});
