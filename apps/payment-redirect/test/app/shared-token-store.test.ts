import IORedis from 'ioredis';
import { createTestRedis, TEST_REDIS_URL, type TestRedis, sleep } from '@gateway/testkit';
import { createTokenStore, ProviderCheckoutError, type ProviderToken, type TokenStoreOptions } from '@gateway/providers';
import { redisSharedStore } from '../../src/services/redis-shared-store';

// The provider token store on a real Redis, as two replicas see it: each its own connection, one prefix.

let first: TestRedis;
let second: TestRedis;
const HOUR = 3_600_000;
const signal = () => AbortSignal.timeout(5_000);

beforeAll(() => {
  first = createTestRedis('token_store');
  second = createTestRedis('token_store');
});
afterAll(async () => {
  await second.redis.quit();
  await first.close();
});

/** A replica's store: its own Redis connection, the shared prefix of this test. */
function replica(redis: TestRedis, prefix: string, options: Partial<TokenStoreOptions> = {}) {
  return createTokenStore(redisSharedStore(redis.redis, first.prefix), { prefix: `provider-tokens:${prefix}:`, ...options });
}

/** A provider's refresh call: each mint a new token, and (as Transak) the previous one dead. */
function tokenIssuer(lifetimeMs = 7 * 24 * HOUR, latencyMs = 50, now = Date.now) {
  let issued = 0;
  return {
    get count() {
      return issued;
    },
    mint: async (): Promise<ProviderToken> => {
      await sleep(latencyMs);
      issued += 1;
      return { value: `token-${issued}`, expiresAt: now() + lifetimeMs };
    },
  };
}

/** A moment a test lets happen: `promise` resolves once `resolve` is called. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  const moment: { resolve?: () => void } = {};
  const promise = new Promise<void>((done) => {
    moment.resolve = done;
  });
  return { promise, resolve: () => moment.resolve?.() };
}

describe('shared provider tokens', () => {
  it('concurrent calls on two replicas mint one token, and every caller gets it', async () => {
    const issuer = tokenIssuer();
    const [a, b] = [replica(first, 'concurrent'), replica(second, 'concurrent')];
    const tokens = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).current('access', issuer.mint, { signal: signal() })),
    );
    expect(issuer.count).toBe(1);
    expect(new Set(tokens)).toEqual(new Set(['token-1']));
  });

  it('a restarted or added replica uses the stored token and mints nothing', async () => {
    const issuer = tokenIssuer();
    await replica(first, 'restart').current('access', issuer.mint, { signal: signal() });
    const added = replica(second, 'restart');
    expect(await added.current('access', issuer.mint, { signal: signal() })).toBe('token-1');
    expect(issuer.count).toBe(1);
  });

  it('refreshes before expiry, once, keeping the previous token for verification', async () => {
    // Tokens of 3 hours with a one-hour margin: due after two.
    let clock = Date.now();
    const issuer = tokenIssuer(3 * HOUR, 50, () => clock);
    const store = replica(first, 'refresh', { now: () => clock });
    expect(await store.current('access', issuer.mint, { signal: signal() })).toBe('token-1');
    expect(await store.known('access')).toEqual(['token-1']);
    clock += 119 * 60_000;
    expect(await store.current('access', issuer.mint, { signal: signal() })).toBe('token-1');
    clock += 2 * 60_000;
    const other = replica(second, 'refresh', { now: () => clock });
    const refreshed = await Promise.all([store, other, store, other].map((s) => s.current('access', issuer.mint, { signal: signal() })));
    expect(refreshed).toEqual(['token-2', 'token-2', 'token-2', 'token-2']);
    expect(issuer.count).toBe(2);
    expect(await other.known('access')).toEqual(['token-2', 'token-1']);
  });

  it('refreshes a short-lived token at half its life, not on every call', async () => {
    let clock = Date.now();
    const issuer = tokenIssuer(10 * 60_000, 10, () => clock);
    const store = replica(first, 'short');
    const at = (offsetMinutes: number) => {
      clock += offsetMinutes * 60_000;
      return createTokenStore(redisSharedStore(first.redis, first.prefix), { prefix: 'provider-tokens:short:', now: () => clock });
    };
    await store.current('access', issuer.mint, { signal: signal() });
    expect(await at(4).current('access', issuer.mint, { signal: signal() })).toBe('token-1');
    expect(await at(2).current('access', issuer.mint, { signal: signal() })).toBe('token-2');
    expect(issuer.count).toBe(2);
  });

  it('forgets a token the provider refused (only while it is the current one), so the next call mints', async () => {
    const issuer = tokenIssuer();
    const store = replica(first, 'discard');
    await store.current('access', issuer.mint, { signal: signal() });
    await store.discard('access', 'token-0');
    expect(await store.current('access', issuer.mint, { signal: signal() })).toBe('token-1');
    await store.discard('access', 'token-1');
    expect(await store.current('access', issuer.mint, { signal: signal() })).toBe('token-2');
  });

  it('a failed mint frees the lock at once; the lock is released only by its holder', async () => {
    const store = replica(first, 'failing');
    const refusal = new ProviderCheckoutError('refresh-token answered 401', 'refused');
    await expect(store.current('access', () => Promise.reject(refusal), { signal: signal() })).rejects.toBe(refusal);
    const issuer = tokenIssuer();
    expect(await store.current('access', issuer.mint, { signal: signal() })).toBe('token-1');
    const kv = redisSharedStore(first.redis, first.prefix);
    expect(await kv.set('lock-test', 'holder-a', 10_000, { onlyIfAbsent: true })).toBe(true);
    expect(await kv.set('lock-test', 'holder-b', 10_000, { onlyIfAbsent: true })).toBe(false);
    expect(await kv.deleteIfEquals('lock-test', 'holder-b')).toBe(false);
    expect(await kv.get('lock-test')).toBe('holder-a');
    expect(await kv.deleteIfEquals('lock-test', 'holder-a')).toBe(true);
  });

  it("a replica whose lock expired while it minted frees only its own: the replica that took the lock meanwhile keeps it, so a third waits for that one's token", async () => {
    // A's provider call outlives A's lock (100 ms), then fails; B took the lock after it expired.
    // A freeing B's lock would let a third replica mint beside B, and Transak's second refresh logs the first out.
    const minting = { b: deferred(), bMayFinish: deferred() };
    const a = replica(first, 'expired-lock', { lockTtlMs: 100 });
    const aCall = a.current(
      'access',
      async () => {
        await minting.b.promise;
        throw new ProviderCheckoutError('refresh-token timed out', 'unavailable');
      },
      { signal: signal() },
    );
    aCall.catch(() => undefined);
    await sleep(200);
    const bCall = replica(second, 'expired-lock').current(
      'access',
      async () => {
        minting.b.resolve();
        await minting.bMayFinish.promise;
        return { value: 'token-b', expiresAt: Date.now() + HOUR };
      },
      { signal: signal() },
    );
    await expect(aCall).rejects.toThrow('refresh-token timed out');

    const thirdMint = jest.fn(async () => ({ value: 'token-c', expiresAt: Date.now() + HOUR }));
    const thirdCall = replica(first, 'expired-lock').current('access', thirdMint, { signal: signal() });
    // Long enough for the third replica to take a lock that was freed (it looks every 50 ms).
    await sleep(300);
    minting.bMayFinish.resolve();
    expect(await bCall).toBe('token-b');
    expect(await thirdCall).toBe('token-b');
    expect(thirdMint).not.toHaveBeenCalled();
  });

  it('a replica waiting on another gives up with the checkout deadline; Redis away is "unavailable", never the token', async () => {
    const kv = redisSharedStore(first.redis, first.prefix);
    await kv.set('provider-tokens:stuck:access:lock', 'another-replica', 10_000);
    const waiting = replica(second, 'stuck').current('access', tokenIssuer().mint, { signal: AbortSignal.timeout(200) });
    await expect(waiting).rejects.toMatchObject({ kind: 'unavailable' });
    const down = new IORedis(TEST_REDIS_URL.replace(/:\d+$/, ':1'), {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    down.on('error', () => undefined);
    const store = createTokenStore(redisSharedStore(down, 'x'), { prefix: 'provider-tokens:down:' });
    const error = await store.current('access', tokenIssuer().mint, { signal: signal() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderCheckoutError);
    expect(error).toMatchObject({ kind: 'unavailable' });
    down.disconnect();
  });
});
