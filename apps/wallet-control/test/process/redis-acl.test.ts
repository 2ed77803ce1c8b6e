import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import IORedis from 'ioredis';
import { seedDelivery, seedWallet, startAclRedis, type AclRedis } from '@gateway/app-testkit';
import { sleep } from '@gateway/testkit';
import { walletControlFixture } from '../support/wallet-control-fixture';

// wallet-control as its own Redis ACL user (a private redis-server with every app's user): Create
// Wallet counts the rate limit, reads the cached rates and counts the payout quota and the
// gateway's ceiling in Redis, never falling back to its in-process counts for want of a right.

let acl: AclRedis;
let app: FastifyInstance;
const fixture = walletControlFixture('redis_acl', { PAYOUT_WALLET_QUOTA_MAX: '2', PAYOUT_WALLET_QUOTA_WINDOW_SECONDS: '600' });

beforeAll(async () => {
  acl = await startAclRedis('wc-acl');
  const config = fixture.config({ REDIS_URL: acl.urlOf('wallet-control'), REDIS_PREFIX: acl.prefix });
  app = await fixture.build(config, { redis: acl.testRedisOf('wallet-control') });
}, 30_000);

afterAll(async () => {
  await app?.close();
  await acl?.stop();
});

it('creates wallets and holds the payout quota through Redis, every key in its own areas', async () => {
  const payout = `0x${randomBytes(20).toString('hex')}`;
  const create = (n: number) =>
    app.inject({
      method: 'GET',
      url: '/control/wallet.php',
      query: { address: payout, callback: `https://shop.io/ipn/acl-${n}?order_id=${n}` },
    });
  expect((await create(1)).statusCode).toBe(200);
  expect((await create(2)).statusCode).toBe(200);
  // The counts reach Redis in the background, a moment after each answer.
  await sleep(200);
  expect((await create(3)).json()).toMatchObject({ code: 'payout_quota_exceeded' });
  expect((await app.inject({ method: 'GET', url: '/control/convert.php', query: { value: '10', from: 'eur' } })).statusCode).toBe(200);

  const metrics = await app.metrics.metrics();
  expect(metrics).toMatch(/^wallet_control_payout_quota_store_errors_total\{[^}]*\} 0$/m);
  expect(metrics).toMatch(/^rate_limit_store_errors_total\{[^}]*\} 0$/m);
  const look = new IORedis(acl.server.url);
  try {
    const keys = await look.keys(`${acl.prefix}:*`);
    const area = (key: string) => key.slice(acl.prefix.length + 1);
    expect(keys.some((key) => area(key).startsWith(`payout-quota:${payout}`))).toBe(true);
    expect(keys.some((key) => area(key).startsWith('new-wallets'))).toBe(true);
    expect(keys.some((key) => area(key).startsWith('rate-limit:'))).toBe(true);
    expect(keys.every((key) => /^(rate-limit:|rates:|payout-quota|new-wallets)/.test(area(key)))).toBe(true);
  } finally {
    look.disconnect();
  }
});

it("limits a merchant's resends per wallet in its rate-limit area", async () => {
  const wallet = await seedWallet(fixture.db.pool);
  await seedDelivery(fixture.db.pool, { walletId: wallet.id, status: 'delivered' });
  const resend = () => app.inject({ method: 'POST', url: '/control/resend-callback.php', query: { ipn_token: wallet.ipnToken } });
  expect((await resend()).statusCode).toBe(200);
  expect((await resend()).statusCode).toBe(429);
  expect(await app.metrics.metrics()).toMatch(/^rate_limit_store_errors_total\{[^}]*\} 0$/m);
  const look = new IORedis(acl.server.url);
  try {
    expect(await look.keys(`${acl.prefix}:rate-limit:keyed-callback-resend:*`)).toHaveLength(1);
  } finally {
    look.disconnect();
  }
});

it('with PAYOUT_ADDRESSES pinned, remembers the claimed origins in its own areas too', async () => {
  const payout = `0x${randomBytes(20).toString('hex')}`;
  const config = fixture.config({ REDIS_URL: acl.urlOf('wallet-control'), REDIS_PREFIX: acl.prefix, PAYOUT_ADDRESSES: payout });
  const pinned = await fixture.build(config, { redis: acl.testRedisOf('wallet-control') });
  try {
    const response = await pinned.inject({
      method: 'GET',
      url: '/control/wallet.php',
      query: { address: payout, callback: 'https://pinned.shop.io/ipn?order_id=1' },
    });
    expect(response.statusCode).toBe(200);
    await sleep(200);
    expect(await pinned.metrics.metrics()).toMatch(/^wallet_control_payout_quota_store_errors_total\{[^}]*\} 0$/m);
    const look = new IORedis(acl.server.url);
    try {
      expect(await look.keys(`${acl.prefix}:payout-quota-claim:*`)).toHaveLength(1);
    } finally {
      look.disconnect();
    }
  } finally {
    await pinned.close();
  }
});
