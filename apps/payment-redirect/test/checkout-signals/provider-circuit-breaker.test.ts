import IORedis from 'ioredis';
import Fastify from 'fastify';
import { Registry } from 'prom-client';
import { createTestRedis, TEST_REDIS_URL, type TestRedis } from '@gateway/testkit';
import { providerCircuitMetrics } from '../../src/metrics';
import { ProviderCircuitBreaker } from '../../src/services/checkout-signals/provider-circuit-breaker';

// The circuit breakers on the real Redis, two replicas (two breakers, two connections) sharing one
// prefix, on a clock the test moves: a provider failing over the threshold is taken off the page
// for the cool-off; then one trial goes through, whichever replica asks; its failure closes it off
// again, its success lists it again with a fresh window. Redis gone, the breaker lets everything through.

const SETTINGS = { windowSeconds: 60, minCalls: 4, failurePercent: 50, coolOffSeconds: 30 };
const providers = [{ id: 'moonpay' }, { id: 'transak' }, { id: 'banxa' }];
const ids = (list: readonly { id: string }[]) => list.map((provider) => provider.id);

let cache: TestRedis;
let other: IORedis;
let clock: number;
let registry: Registry;
let metrics: ReturnType<typeof providerCircuitMetrics>;
let logs: string[];

function replica(redis: IORedis, prefix = cache.prefix): ProviderCircuitBreaker {
  // Fastify's own logger (pino), writing its lines here to be read.
  const { log } = Fastify({ logger: { level: 'info', stream: { write: (line: string) => logs.push(line) } } });
  return new ProviderCircuitBreaker({ redis, prefix, settings: SETTINGS, metrics, log, now: () => clock });
}

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const found = (await registry.getSingleMetric(name)?.get())?.values.find((value) =>
    Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted),
  );
  return found?.value ?? 0;
}

async function call(breaker: ProviderCircuitBreaker, provider: string, outcome: 'success' | 'error' | 'timeout'): Promise<boolean> {
  const admission = await breaker.admit(provider);
  if (!admission.admit) return false;
  await breaker.record(admission.ticket, outcome);
  return true;
}

beforeEach(() => {
  cache = createTestRedis('circuit');
  other = new IORedis(cache.url, { maxRetriesPerRequest: 1 });
  clock = Date.parse('2026-11-28T12:00:00Z');
  registry = new Registry();
  // One set of metrics for both replicas of a test: the openings add up as Prometheus would sum them.
  metrics = providerCircuitMetrics(registry);
  logs = [];
});

afterEach(async () => {
  other.disconnect();
  await cache.close();
});

describe('a provider whose checkout calls fail', () => {
  it('stays listed below the fewest calls, and under the threshold', async () => {
    const a = replica(cache.redis);
    for (const outcome of ['error', 'timeout', 'error'] as const) expect(await call(a, 'moonpay', outcome)).toBe(true);
    // Three calls, all failed: fewer than PROVIDER_CIRCUIT_MIN_CALLS.
    expect(ids((await a.listed(providers)).listed)).toEqual(['moonpay', 'transak', 'banxa']);
    for (const outcome of ['success', 'success', 'success', 'success'] as const) await call(a, 'transak', outcome);
    await call(a, 'transak', 'error');
    expect(ids((await a.listed(providers)).listed)).toContain('transak');
    expect(await metric('payment_redirect_provider_circuit_openings_total')).toBe(0);
  });

  it('is closed off for the cool-off, then one trial across replicas; a failed trial closes it off again, a good one lists it', async () => {
    const a = replica(cache.redis);
    const b = replica(other);
    // Four calls from two replicas, three failed (75 % ≥ 50 %): the fourth opens the circuit.
    await call(a, 'moonpay', 'success');
    await call(b, 'moonpay', 'error');
    await call(a, 'moonpay', 'timeout');
    expect(ids((await b.listed(providers)).listed)).toContain('moonpay');
    await call(b, 'moonpay', 'error');
    const open = await a.listed(providers);
    expect(ids(open.listed)).toEqual(['transak', 'banxa']);
    expect(open.states.get('moonpay')).toBe('open');
    expect(await a.admit('moonpay')).toEqual({ admit: false });
    expect(await metric('payment_redirect_provider_circuit_openings_total', { provider: 'moonpay' })).toBe(1);
    expect(await metric('payment_redirect_provider_circuit_state', { provider: 'moonpay', state: 'open' })).toBe(1);
    expect(logs.some((line) => line.includes('provider circuit opened: its checkouts are failing'))).toBe(true);

    // Still off a moment before the cool-off ends; listed once it has.
    clock += 29_999;
    expect(ids((await b.listed(providers)).listed)).not.toContain('moonpay');
    clock += 1;
    expect(ids((await b.listed(providers)).listed)).toContain('moonpay');

    // Both replicas' customers choose it at once: one trial goes through.
    const admissions = await Promise.all([a.admit('moonpay'), b.admit('moonpay'), a.admit('moonpay'), b.admit('moonpay')]);
    const trials = admissions.filter((admission) => admission.admit);
    expect(trials).toHaveLength(1);
    // While it is under way the provider is off the page again.
    expect(ids((await a.listed(providers)).listed)).not.toContain('moonpay');
    expect((await a.listed(providers)).states.get('moonpay')).toBe('half_open');

    // The trial fails: closed off for another cool-off.
    const trial = trials[0]!;
    if (!trial.admit) throw new Error('unreachable');
    clock += 2_000;
    await b.record(trial.ticket, 'timeout');
    expect(ids((await a.listed(providers)).listed)).not.toContain('moonpay');
    expect(await metric('payment_redirect_provider_circuit_openings_total', { provider: 'moonpay' })).toBe(2);
    expect(logs.some((line) => line.includes('provider circuit opened again: its trial checkout failed'))).toBe(true);
    clock += 29_999;
    expect(await b.admit('moonpay')).toEqual({ admit: false });

    // After it, a trial that succeeds closes the circuit: listed, and its window starts over.
    clock += 1;
    expect(await call(b, 'moonpay', 'success')).toBe(true);
    expect((await a.listed(providers)).states.get('moonpay')).toBe('closed');
    expect(ids((await a.listed(providers)).listed)).toEqual(['moonpay', 'transak', 'banxa']);
    // The failures before the trial no longer count: one more failure does not open it.
    await call(a, 'moonpay', 'error');
    expect(ids((await a.listed(providers)).listed)).toContain('moonpay');
    expect(await metric('payment_redirect_provider_circuit_state', { provider: 'moonpay', state: 'closed' })).toBe(1);
  });

  it('lets a trial whose replica died be replaced after a further cool-off', async () => {
    const a = replica(cache.redis);
    for (let i = 0; i < 4; i += 1) await call(a, 'banxa', 'error');
    clock += 30_000;
    expect((await a.admit('banxa')).admit).toBe(true);
    // The trial never ends; another cool-off later, another is let through.
    clock += 29_000;
    expect((await a.admit('banxa')).admit).toBe(false);
    clock += 1_000;
    expect((await a.admit('banxa')).admit).toBe(true);
  });

  it('does not let a call begun before the circuit opened decide its trial', async () => {
    const a = replica(cache.redis);
    const early = await a.admit('transak');
    if (!early.admit) throw new Error('a closed circuit admits');
    for (let i = 0; i < 4; i += 1) await call(a, 'transak', 'error');
    clock += 30_000;
    const trial = await a.admit('transak');
    expect(trial.admit).toBe(true);
    // The early call ends with a success during the trial: the circuit stays half-open.
    await a.record(early.ticket, 'success');
    expect((await a.listed(providers)).states.get('transak')).toBe('half_open');
  });

  it('forgets calls older than the window', async () => {
    const a = replica(cache.redis);
    for (let i = 0; i < 3; i += 1) await call(a, 'moonpay', 'error');
    clock += 60_001;
    await call(a, 'moonpay', 'error');
    expect(ids((await a.listed(providers)).listed)).toContain('moonpay');
  });

  it('never leaves the page empty: with every circuit open the least recently opened stay', async () => {
    const a = replica(cache.redis);
    for (const provider of ['banxa', 'moonpay', 'transak']) {
      for (let i = 0; i < 4; i += 1) await call(a, provider, 'error');
      clock += 1_000;
    }
    const page = await a.listed(providers);
    expect(ids(page.listed)).toEqual(['banxa']);
    expect(page.keptDespiteOpen).toBe(true);
  });
});

describe('with Redis down', () => {
  it('lists every provider and lets every call through, logged and counted, never throwing', async () => {
    // Nothing listens on port 1; the app's client (packages/http redis-client.ts) fails fast without an offline queue too.
    const down = new IORedis(TEST_REDIS_URL.replace(/:\d+$/, ':1'), {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    down.on('error', () => undefined);
    try {
      const breaker = replica(down);
      const page = await breaker.listed(providers);
      expect(ids(page.listed)).toEqual(['moonpay', 'transak', 'banxa']);
      expect(page.keptDespiteOpen).toBe(false);
      const admission = await breaker.admit('moonpay');
      expect(admission).toEqual({ admit: true, ticket: { provider: 'moonpay' } });
      if (admission.admit) await expect(breaker.record(admission.ticket, 'error')).resolves.toBeUndefined();
      expect(await metric('payment_redirect_provider_circuit_store_errors_total')).toBe(3);
      expect(logs.filter((line) => line.includes('provider circuit store (Redis) failed')).length).toBe(3);
    } finally {
      down.disconnect();
    }
  });
});
