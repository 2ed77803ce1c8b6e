import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { startRedisServer, type RunningRedis } from '@gateway/testkit';
import { runGateway } from '@gateway/app-testkit';

// `gateway redis acl`: each app's Redis user from the URL it is given, printed as an aclfile or
// made with --apply on a private redis-server (never the shared one's users).

let server: RunningRedis;
const prefix = 'gw-cli';
const password = (app: string) => `${app}-${randomBytes(12).toString('hex')}`;
const apps = ['wallet-control', 'payment-redirect', 'chain-watcher', 'settlement-worker', 'callback-worker'];
const urls = () =>
  Object.fromEntries(
    apps.map((app) => [
      `${app.toUpperCase().replaceAll('-', '_')}_REDIS_URL`,
      `redis://${prefix}-${app}:${password(app)}@127.0.0.1:${server.port}`,
    ]),
  );

beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server?.stop());

describe('gateway redis acl', () => {
  it('prints an aclfile line per app, the passwords as SHA-256', async () => {
    const env = urls();
    const run = await runGateway(['redis', 'acl'], { ...env, REDIS_PREFIX: prefix });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const lines = run.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(' ')[1])).toEqual(apps.map((app) => `${prefix}-${app}`));
    expect(lines[0]).toMatch(/^user gw-cli-wallet-control on #[0-9a-f]{64} ~gw-cli:rate-limit:\* /);
    for (const url of Object.values(env)) expect(run.stdout).not.toContain(decodeURIComponent(new URL(url).password));
  }, 60_000);

  it("--apply makes the users on REDIS_URL: each app gets in with its URL and is refused the others' keys", async () => {
    const env = urls();
    const run = await runGateway(['redis', 'acl', '--apply'], { ...env, REDIS_PREFIX: prefix, REDIS_URL: server.url });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain(`${prefix}-callback-worker`);
    const walletControl = new IORedis(env.WALLET_CONTROL_REDIS_URL!, { maxRetriesPerRequest: 1 });
    const paymentRedirect = new IORedis(env.PAYMENT_REDIRECT_REDIS_URL!, { maxRetriesPerRequest: 1 });
    try {
      expect(String(await walletControl.call('ACL', 'WHOAMI').catch((error: Error) => error.message))).toMatch(/NOPERM/);
      const token = `${prefix}:provider-tokens:transak:partner-access-token:live:0123456789abcdef`;
      await paymentRedirect.set(token, 'secret');
      await expect(walletControl.get(token)).rejects.toThrow(/NOPERM/);
      expect(await walletControl.incr(`${prefix}:rate-limit:203.0.113.7`)).toBe(1);
    } finally {
      walletControl.disconnect();
      paymentRedirect.disconnect();
    }
  }, 60_000);

  it('refuses an app URL without a user of its own, and two apps sharing one user', async () => {
    const noUser = await runGateway(['redis', 'acl'], { ...urls(), CHAIN_WATCHER_REDIS_URL: `redis://:${password('x')}@127.0.0.1:6379` });
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toContain('CHAIN_WATCHER_REDIS_URL: the chain-watcher Redis URL names no user of its own');
    const env = urls();
    const shared = await runGateway(['redis', 'acl'], { ...env, CALLBACK_WORKER_REDIS_URL: env.SETTLEMENT_WORKER_REDIS_URL! });
    expect(shared.code).toBe(2);
    expect(shared.stderr).toContain(`two apps share the Redis user ${prefix}-settlement-worker`);
    const missing = await runGateway(['redis', 'acl'], { WALLET_CONTROL_REDIS_URL: env.WALLET_CONTROL_REDIS_URL! });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('PAYMENT_REDIRECT_REDIS_URL');
  }, 60_000);
});
