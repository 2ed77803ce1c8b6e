import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createApiRedis } from '@gateway/http';
import { startRedisServer, type RunningRedis, type TestRedis, sleep } from '@gateway/testkit';
import { walletControlFixture } from './support/wallet-control-fixture';

// Issue 22: Create Wallet was not bounded. The per-payout quota is bypassed by rotating payout
// addresses, and it (like the rate limit) let everything through while Redis was down. Now a
// gateway-wide ceiling on new wallets per minute, counted in Redis across replicas, and an
// in-process count of both when Redis does not answer: never open.

const fixture = walletControlFixture('new_wallet_ceiling', {
  NEW_WALLETS_PER_MINUTE: '4',
  PAYOUT_WALLET_QUOTA_MAX: '2',
  PAYOUT_WALLET_QUOTA_WINDOW_SECONDS: '600',
});
const payoutAddress = () => `0x${randomBytes(20).toString('hex')}`;
let order = 0;
// A path of its own per wallet: the wallets have different payout addresses, and a path belongs to one.
const nextCallback = () => `https://shop.io/ipn/ceiling-${++order}?order_id=${order}`;
let client = 0;
// A client of its own for each request: what is under test is the ceiling, not one client's budget (issue 35).
const createWallet = (on: FastifyInstance, address: string, callback: string) =>
  on.inject({ method: 'GET', url: '/control/wallet.php', query: { address, callback }, remoteAddress: `192.0.2.${(++client % 250) + 1}` });

/** A minute's window starts within this test's run: wait for the next one when fewer than 20 s are left. */
async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await sleep(left + 50);
}

describe('the gateway-wide ceiling on new wallets (NEW_WALLETS_PER_MINUTE)', () => {
  it('refuses the new wallet past the ceiling with 429, Retry-After and its code, whatever the payout address and replica; repeats pass', async () => {
    await freshMinute();
    const [a, b] = [await fixture.build(), await fixture.build()];
    const created: Array<{ address: string; callback: string }> = [];
    for (const app of [a, b, a, b]) {
      const wallet = { address: payoutAddress(), callback: nextCallback() };
      expect((await createWallet(app, wallet.address, wallet.callback)).statusCode).toBe(200);
      created.push(wallet);
    }
    const refused = await createWallet(a, payoutAddress(), nextCallback());
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'new_wallet_ceiling', param: 'callback' });
    expect(refused.json().error).toMatch(/4 new wallets per minute \(NEW_WALLETS_PER_MINUTE\)/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await createWallet(b, payoutAddress(), nextCallback())).statusCode).toBe(429);
    // A wallet that exists is answered, from either replica.
    for (const [app, wallet] of [
      [b, created[0]!],
      [a, created[3]!],
    ] as const) {
      expect((await createWallet(app, wallet.address, wallet.callback)).statusCode).toBe(200);
    }
    const metrics = await a.metrics.metrics();
    expect(metrics).toMatch(/^wallet_control_new_wallets_refused_total\{reason="gateway_ceiling"[^}]*\} 1$/m);
  });
});

describe('past the ceiling, the own-wallet rule still comes first', () => {
  it('answers 400 naming address, not 429, for a payout address that is one of our temporary wallets', async () => {
    await freshMinute();
    const app = await fixture.build();
    const created = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await createWallet(app, payoutAddress(), nextCallback());
      if (response.statusCode === 200) created.push(response.json().polygon_address_in as string);
    }
    // The ceiling (4) is reached this minute, by these wallets or by the first test's.
    expect((await createWallet(app, payoutAddress(), nextCallback())).statusCode).toBe(429);
    const temporary = created[0] ?? (await fixture.db.pool.query('SELECT polygon_address FROM wallets LIMIT 1')).rows[0].polygon_address;
    const refused = await createWallet(app, temporary, nextCallback());
    expect([refused.statusCode, refused.json().code, refused.json().param]).toEqual([400, 'invalid_parameter', 'address']);
  });
});

describe('when Redis does not answer', () => {
  let server: RunningRedis;
  let down: TestRedis;
  beforeAll(async () => {
    server = await startRedisServer();
    const redis = createApiRedis(server.url);
    redis.on('error', () => undefined);
    await new Promise((resolve) => redis.once('ready', resolve));
    down = { redis, url: server.url, prefix: 'down', close: async () => redis.disconnect() };
  });
  afterAll(async () => {
    await down.close();
    await server.stop();
  });

  it('counts new wallets in the process, against the ceiling and the per-payout quota: never open', async () => {
    await freshMinute();
    const app = await fixture.build(fixture.config({ REDIS_PREFIX: 'down' }), { redis: down });
    await server.stop();
    const payout = payoutAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await createWallet(app, payout, nextCallback())).statusCode);
    // The per-payout quota (2) holds without Redis.
    expect(statuses).toEqual([200, 200, 429]);
    expect((await createWallet(app, payoutAddress(), nextCallback())).statusCode).toBe(200);
    expect((await createWallet(app, payoutAddress(), nextCallback())).statusCode).toBe(200);
    // Four new wallets this minute: the ceiling holds without Redis too.
    const refused = await createWallet(app, payoutAddress(), nextCallback());
    expect([refused.statusCode, refused.json().code]).toEqual([429, 'new_wallet_ceiling']);
    expect(await app.metrics.metrics()).toMatch(/^wallet_control_payout_quota_store_errors_total\{[^}]*\} [1-9]\d*$/m);
  });
});
