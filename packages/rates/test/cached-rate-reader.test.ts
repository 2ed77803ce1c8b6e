import { randomUUID } from 'node:crypto';
import IORedis from 'ioredis';
import { GatewayError, type CurrencyCode, type ExactRate } from '@gateway/domain';
import { createTestRedis, findFreePort, startTcpForwarder, type TestRedis } from '@gateway/testkit';
import { CachedRateReader, currentRatesOrDeferredError, type RateSnapshot, type RateSource } from '../src';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FRIDAY_RATES = new Date('2025-03-14T13:10:00Z'); // the ECB's Friday rates…
const MONDAY_MORNING = Date.parse('2025-03-17T07:00:00Z'); // …still the newest on Monday morning (66 h later)

const rate = (numerator: bigint, denominator: bigint): ExactRate => ({ numerator, denominator });
const snapshotOf = (asOf: Date, eur = rate(1000n, 1089n)): RateSnapshot => ({
  rates: new Map<CurrencyCode, ExactRate>([
    ['USD', rate(1n, 1n)],
    ['EUR', eur],
  ]),
  asOf,
  source: 'fake',
});

/** A source whose answer, failure and speed the test sets; counts its fetches. */
function fakeSource() {
  const state: { snapshot: RateSnapshot; failure?: Error; delayMs: number; calls: number } = {
    snapshot: snapshotOf(FRIDAY_RATES),
    delayMs: 0,
    calls: 0,
  };
  const source: RateSource = {
    name: 'fake',
    cacheKey: `fake:${randomUUID()}`,
    async fetch() {
      state.calls += 1;
      if (state.delayMs) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
      if (state.failure) throw state.failure;
      return state.snapshot;
    },
  };
  return { source, state };
}

let cache: TestRedis;
let clock: number;
const readers: CachedRateReader[] = [];

function reader(source: RateSource, redis: IORedis = cache.redis, options: Partial<{ refreshMs: number; maxAgeMs: number }> = {}) {
  const created = new CachedRateReader({
    source,
    redis,
    keyPrefix: cache.prefix,
    refreshMs: options.refreshMs ?? HOUR,
    maxAgeMs: options.maxAgeMs ?? 5 * DAY,
    now: () => clock,
  });
  readers.push(created);
  return created;
}

const cacheKeyOf = (source: RateSource) => `${cache.prefix}:rates:${source.cacheKey}`;

async function unavailable(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

beforeAll(() => {
  cache = createTestRedis('rates');
});

beforeEach(() => {
  clock = MONDAY_MORNING;
});

afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.stop()));
});

afterAll(() => cache.close());

describe('CachedRateReader', () => {
  it("serves Friday's ECB rates on Monday morning and stores them in Redis with their age", async () => {
    const { source, state } = fakeSource();
    const rates = reader(source);
    await rates.start();
    expect(state.calls).toBe(1);
    await expect(rates.current()).resolves.toEqual(snapshotOf(FRIDAY_RATES));
    const stored = JSON.parse((await cache.redis.get(cacheKeyOf(source))) ?? 'null');
    expect(stored).toEqual({
      v: 1,
      source: 'fake',
      asOf: FRIDAY_RATES.getTime(),
      fetchedAt: MONDAY_MORNING,
      rates: { USD: '1/1', EUR: '1000/1089' },
    });
    // Expires with the maximum age, so a dead source's table cannot linger in Redis.
    expect(await cache.redis.pttl(cacheKeyOf(source))).toBeGreaterThan(5 * DAY - 60_000);
    expect(rates.status()).toMatchObject({ source: 'fake', ageMs: MONDAY_MORNING - FRIDAY_RATES.getTime(), usable: true });
  });

  it('refuses rates older than the maximum age with a clear 503 and Retry-After, never using them', async () => {
    const { source } = fakeSource();
    const rates = reader(source);
    await rates.start();
    clock = FRIDAY_RATES.getTime() + 5 * DAY; // exactly the limit: still used
    await expect(rates.current()).resolves.toMatchObject({ source: 'fake' });
    clock += 1;
    const error = await unavailable(rates.current());
    expect(error).toMatchObject({ code: 'service_unavailable', statusCode: 503, retryAfterSeconds: 60 });
    expect(error.message).toBe(
      'exchange rates are too old to use: the newest from fake are of 2025-03-14T13:10:00.000Z, 5 days ago, and this gateway refuses ' +
        'rates older than 5 days; retry later',
    );
  });

  it('answers 503 before any rates were loaded', async () => {
    const { source, state } = fakeSource();
    state.failure = new Error('ECONNREFUSED');
    const rates = reader(source);
    await rates.start();
    const error = await unavailable(rates.current());
    expect(error).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 60 });
    expect(error.message).toMatch(/exchange rates are not available yet: the rate source \(fake\) has not answered/);
    expect(error.message).not.toMatch(/ECONNREFUSED/);
  });

  it('lets a second replica take the cached snapshot instead of fetching, until it is due', async () => {
    const { source, state } = fakeSource();
    const first = reader(source);
    const second = reader(source);
    await first.start();
    await second.start();
    expect(state.calls).toBe(1);
    await expect(second.current()).resolves.toEqual(snapshotOf(FRIDAY_RATES));

    clock += HOUR; // due: the one that refreshes first fetches; the other reads what it stored
    state.snapshot = snapshotOf(new Date('2025-03-17T13:10:00Z'), rate(1000n, 1088n));
    clock = Date.parse('2025-03-17T15:30:00Z');
    expect(await second.refresh()).toBe('fetched');
    expect(await first.refresh()).toBe('cached');
    expect(state.calls).toBe(2);
    expect((await first.current()).rates.get('EUR')).toEqual(rate(1000n, 1088n));
  });

  it('lets only one replica fetch at a time (SET NX PX lock), and releases the lock', async () => {
    const { source, state } = fakeSource();
    state.delayMs = 150;
    const [a, b] = [reader(source), reader(source)];
    const outcomes = await Promise.all([a.refresh(), b.refresh()]);
    expect(outcomes.sort()).toEqual(['fetched', 'locked']);
    expect(state.calls).toBe(1);
    expect(await cache.redis.exists(`${cacheKeyOf(source)}:lock`)).toBe(0);
    // The replica that was locked out picks the snapshot up on its next refresh.
    const late = outcomes[0] === 'locked' ? a : b;
    expect(await late.refresh()).toBe('cached');

    const { source: other, state: otherState } = fakeSource();
    await cache.redis.set(`${cacheKeyOf(other)}:lock`, 'another replica', 'PX', 10_000);
    expect(await reader(other).refresh()).toBe('locked');
    expect(otherState.calls).toBe(0);
  });

  it('keeps serving the last good snapshot through a source outage, until it is too old', async () => {
    const { source, state } = fakeSource();
    const rates = reader(source);
    await rates.start();
    state.failure = new Error('503 from the source');
    clock += 2 * HOUR;
    expect(await rates.refresh()).toBe('failed');
    await expect(rates.current()).resolves.toEqual(snapshotOf(FRIDAY_RATES));
    clock = FRIDAY_RATES.getTime() + 5 * DAY + 1;
    expect(await rates.refresh()).toBe('failed');
    await expect(rates.current()).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('ignores a corrupted cache entry and fetches', async () => {
    const { source, state } = fakeSource();
    await cache.redis.set(cacheKeyOf(source), '{"v":1,"rates":{"EUR":"0.92"}}');
    expect(await reader(source).refresh()).toBe('fetched');
    expect(state.calls).toBe(1);
  });

  it('does not let a stale mirror replace newer rates, nor believe rates dated in the future', async () => {
    const { source, state } = fakeSource();
    const rates = reader(source);
    await rates.start();
    state.snapshot = snapshotOf(new Date('2025-03-13T13:10:00Z'), rate(1n, 2n));
    clock += 2 * HOUR;
    expect(await rates.refresh()).toBe('fetched');
    expect((await rates.current()).asOf).toEqual(FRIDAY_RATES);
    state.snapshot = snapshotOf(new Date(clock + 2 * DAY));
    clock += 2 * HOUR;
    expect(await rates.refresh()).toBe('failed');
    expect((await rates.current()).asOf).toEqual(FRIDAY_RATES);
  });
});

describe('CachedRateReader without Redis', () => {
  it('serves from memory and fetches the source itself while Redis is down', async () => {
    // Redis behind a forwarder that the test cuts: Redis going away for this client only.
    const port = await findFreePort();
    const forwarder = await startTcpForwarder(port, Number(new URL(cache.url).port || 6379));
    // As the API apps' client (no offline queue: commands fail at once while Redis is away), but
    // without reconnecting: a reconnect loop in flight would outlive the test.
    const redis = new IORedis(port, '127.0.0.1', { maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      const { source, state } = fakeSource();
      const rates = reader(source, redis);
      await rates.start();
      expect(state.calls).toBe(1);
      await forwarder.close();

      // Redis gone and the source failing: the last good snapshot is still served while young enough.
      state.failure = new Error('source down too');
      clock += 2 * HOUR;
      expect(await rates.refresh()).toBe('failed');
      await expect(rates.current()).resolves.toEqual(snapshotOf(FRIDAY_RATES));

      // Redis gone, the source back: the replica fetches without the cache or the lock.
      state.failure = undefined;
      state.snapshot = snapshotOf(new Date('2025-03-17T13:10:00Z'), rate(1000n, 1088n));
      clock = Date.parse('2025-03-17T16:00:00Z');
      expect(await rates.refresh()).toBe('fetched');
      expect((await rates.current()).rates.get('EUR')).toEqual(rate(1000n, 1088n));

      // And a snapshot that grows too old without Redis or the source is refused all the same.
      state.failure = new Error('source down again');
      clock = Date.parse('2025-03-17T13:10:00Z') + 5 * DAY + 1;
      expect(await rates.refresh()).toBe('failed');
      await expect(rates.current()).rejects.toMatchObject({ code: 'service_unavailable' });
    } finally {
      await Promise.all(readers.splice(0).map((r) => r.stop()));
      // ioredis's disconnect() on a connection already closed leaves a 2 s timer behind.
      if (redis.status !== 'end') redis.disconnect();
      await forwarder.close();
    }
  });
});

describe('currentRatesOrDeferredError', () => {
  it('gives the table, or one that answers the 503 only when a rate is looked up', async () => {
    const table = await currentRatesOrDeferredError({ current: async () => snapshotOf(FRIDAY_RATES) });
    expect(table.get('EUR')).toEqual(rate(1000n, 1089n));
    const { source, state } = fakeSource();
    state.failure = new Error('down');
    const rates = reader(source);
    await rates.start();
    const deferred = await currentRatesOrDeferredError(rates);
    expect(() => deferred.get('EUR')).toThrow(/exchange rates are not available yet/);
  });
});
