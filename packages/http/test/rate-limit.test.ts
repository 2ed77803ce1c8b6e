import type { FastifyInstance } from 'fastify';
import type IORedis from 'ioredis';
import { createTestRedis, startRedisServer, type TestRedis } from '@gateway/testkit';
import { createApiRedis, createServer, keyedRateLimit } from '../src';

type TrustProxy = false | number | string[];

async function replica(
  redis: IORedis | undefined,
  prefix: string,
  options: { max?: number; trustProxy?: TrustProxy } = {},
): Promise<FastifyInstance> {
  const app = await createServer({
    serviceName: 'rate-limit-test',
    description: 'test',
    logger: false,
    trustProxy: options.trustProxy ?? false,
    rateLimit: { max: options.max ?? 3, windowMs: 60_000, redis, keyPrefix: prefix },
    readiness: {},
  });
  app.get('/hello', async () => ({ ok: true }));
  app.get('/tight', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => ({ ok: true }));
  // An action limited per thing acted on, counted only once the handler decides to act.
  const perThing = keyedRateLimit(app, {
    max: 2,
    windowMs: 60_000,
    key: (request) => `act:${(request.params as { thing: string }).thing}`,
  });
  app.post('/act/:thing', async (request, reply) => {
    if ((request.params as { thing: string }).thing === 'nothing') return { acted: false };
    const admission = await perThing(request);
    if (!admission.allowed) return reply.status(429).send({ retryAfterSeconds: admission.retryAfterSeconds });
    return { acted: true };
  });
  await app.ready();
  return app;
}

const hello = (app: FastifyInstance, headers: Record<string, string> = {}, remoteAddress = '203.0.113.9') =>
  app.inject({ method: 'GET', url: '/hello', headers, remoteAddress });

let cache: TestRedis;
const apps: FastifyInstance[] = [];
const track = (app: FastifyInstance) => {
  apps.push(app);
  return app;
};

beforeEach(() => {
  cache = createTestRedis('ratelimit');
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await cache.close();
});

describe('rate limits in Redis', () => {
  it('hold across replicas: two app instances share one limit, and the 429 says when to retry', async () => {
    const a = track(await replica(cache.redis, cache.prefix));
    const b = track(await replica(cache.redis, cache.prefix));
    const statuses = [];
    for (const app of [a, b, a, b]) statuses.push((await hello(app)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await hello(a);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'rate_limited' });
    // Another client is not affected.
    expect((await hello(b, {}, '198.51.100.7')).statusCode).toBe(200);
  });

  it('keeps health and metrics out of the limit', async () => {
    const app = track(await replica(cache.redis, cache.prefix, { max: 1 }));
    for (let i = 0; i < 3; i += 1) expect((await app.inject({ url: '/healthz', remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
  });

  it('gives a route its own tighter limit', async () => {
    const app = track(await replica(cache.redis, cache.prefix));
    const tight = () => app.inject({ url: '/tight', remoteAddress: '203.0.113.9' });
    expect((await tight()).statusCode).toBe(200);
    expect((await tight()).statusCode).toBe(429);
    expect((await hello(app)).statusCode).toBe(200);
  });
});

describe('a limit on an action (keyedRateLimit)', () => {
  it('counts per key across replicas and clients, only where the handler asks, and says when to retry', async () => {
    const a = track(await replica(cache.redis, cache.prefix));
    const b = track(await replica(cache.redis, cache.prefix));
    const act = (app: FastifyInstance, thing: string, remoteAddress: string) =>
      app.inject({ method: 'POST', url: `/act/${thing}`, remoteAddress });
    const statuses = [];
    for (const [app, client] of [
      [a, '203.0.113.1'],
      [b, '203.0.113.2'],
      [a, '203.0.113.3'],
    ] as const) {
      statuses.push((await act(app, 'parcel', client)).statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await act(b, 'parcel', '203.0.113.4');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().retryAfterSeconds).toBeGreaterThan(55);
    expect(refused.json().retryAfterSeconds).toBeLessThanOrEqual(60);
    // Another thing has its own count; a request the handler did not count costs nothing.
    expect((await act(a, 'letter', '203.0.113.5')).statusCode).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await act(a, 'nothing', '203.0.113.6')).json()).toEqual({ acted: false });
    expect(await cache.redis.get(`${cache.prefix}:rate-limit:keyed-act:parcel`)).toBe('4');
  });
});

describe('who counts as one client', () => {
  const statusesOf = async (app: FastifyInstance, addresses: string[]) => {
    const statuses = [];
    for (const address of addresses) statuses.push((await hello(app, {}, address)).statusCode);
    return statuses;
  };

  it('an IPv6 /64 is one client: a host hands itself any address of its /64', async () => {
    const app = track(await replica(cache.redis, cache.prefix, { max: 2 }));
    expect(await statusesOf(app, ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:db8:1:2:a:b:c:d'])).toEqual([200, 200, 429]);
    // The same /64 however it is written; the next /64 is someone else.
    expect(await statusesOf(app, ['2001:0DB8:0001:0002:0000:0000:0000:0009'])).toEqual([429]);
    expect(await statusesOf(app, ['2001:db8:1:3::1', '2001:db8:1:1:ffff:ffff:ffff:ffff'])).toEqual([200, 200]);
  });

  it('an IPv4 address is one client, also when it arrives IPv4-mapped', async () => {
    const app = track(await replica(cache.redis, cache.prefix, { max: 2 }));
    expect(await statusesOf(app, ['203.0.113.9', '::ffff:203.0.113.9', '::ffff:cb00:7109'])).toEqual([200, 200, 429]);
    expect(await statusesOf(app, ['203.0.113.10', '203.0.113.8'])).toEqual([200, 200]);
  });

  it('counts the client the trusted proxy saw, by its /64', async () => {
    const app = track(await replica(cache.redis, cache.prefix, { trustProxy: 1, max: 1 }));
    const viaProxy = (client: string) => hello(app, { 'x-forwarded-for': client }, '10.0.0.5');
    expect((await viaProxy('2001:db8:5:6::1')).statusCode).toBe(200);
    expect((await viaProxy('2001:db8:5:6::2')).statusCode).toBe(429);
  });
});

describe('behind a proxy', () => {
  const PROXY = '10.0.0.5';

  it('a spoofed X-Forwarded-For does not escape the limit (one trusted hop)', async () => {
    const app = track(await replica(cache.redis, cache.prefix, { trustProxy: 1, max: 2 }));
    // The client writes whatever it likes on the left; the proxy appends the address it saw.
    const statuses = [];
    for (let i = 0; i < 5; i += 1) {
      statuses.push((await hello(app, { 'x-forwarded-for': `1.2.3.${i}, 203.0.113.9` }, PROXY)).statusCode);
    }
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
  });

  it('trusts only the configured proxy ranges', async () => {
    const app = track(await replica(cache.redis, cache.prefix, { trustProxy: ['10.0.0.0/8'], max: 2 }));
    const viaProxy = [];
    for (let i = 0; i < 3; i += 1) viaProxy.push((await hello(app, { 'x-forwarded-for': `1.2.3.${i}, 203.0.113.9` }, PROXY)).statusCode);
    expect(viaProxy).toEqual([200, 200, 429]);
    // A client connecting directly cannot pretend to be someone else either.
    const direct = [];
    for (let i = 0; i < 3; i += 1) direct.push((await hello(app, { 'x-forwarded-for': `9.9.9.${i}` }, '198.51.100.20')).statusCode);
    expect(direct).toEqual([200, 200, 429]);
  });
});

describe('when Redis is down', () => {
  // Issue 22: the limit let every request through while Redis was down. It now counts in the
  // process: each replica holds the limit on its own (never open), until Redis answers again.
  it('keeps answering and holds the limit in the process (never open), and counts what was counted without Redis', async () => {
    const server = await startRedisServer();
    const redis = createApiRedis(server.url);
    redis.on('error', () => undefined);
    try {
      await new Promise((resolve) => redis.once('ready', resolve));
      const app = track(await replica(redis, 'down', { max: 1 }));
      expect((await hello(app)).statusCode).toBe(200);
      expect((await hello(app)).statusCode).toBe(429);
      await server.stop();
      const statuses = [];
      for (let i = 0; i < 5; i += 1) statuses.push((await hello(app)).statusCode);
      expect(statuses).toEqual([200, 429, 429, 429, 429]);
      const refused = await hello(app);
      expect(refused.json()).toMatchObject({ code: 'rate_limited' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Another client has its own count in the process too.
      expect((await hello(app, {}, '198.51.100.7')).statusCode).toBe(200);
      const metrics = await app.metrics.metrics();
      expect(metrics).toMatch(/^rate_limit_store_errors_total\{[^}]*\} 7$/m);
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});
