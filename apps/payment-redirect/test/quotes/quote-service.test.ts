import { generateKeyPairSync } from 'node:crypto';
import IORedis from 'ioredis';
import { Registry } from 'prom-client';
import { startAclRedis, type AclRedis } from '@gateway/app-testkit';
import { attemptExpectation, expectUsdc, parseFiatAmount, quoteBandOf, type CurrencyCode } from '@gateway/domain';
import { createProviderHttpClient, PROVIDER_MODULES, type ProviderAdapter, type ProviderRegistry } from '@gateway/providers';
import type { RateReader } from '@gateway/rates';
import { startTransakQuoteFake, type QuoteFake } from '../../../../packages/providers/test/support/quote-api-fake';
import { FAKE_API_KEY, FAKE_API_SECRET } from '../../../../packages/providers/test/support/transak-fake';
import { startCoinbaseFake, type CoinbaseFake } from '../../../../packages/providers/test/support/coinbase-fake';
import { quoteMetrics } from '../../src/metrics';
import { QuoteService, type QuoteSettings } from '../../src/services/quotes/quote-service';

// The quote service on a Redis whose users are the apps' ACL users (it connects as payment-redirect:
// a key outside its areas would be refused), asking Transak's documented price API on a local fake
// over real HTTP, which counts the calls. Several services stand for several replicas.
let acl: AclRedis;
let fake: QuoteFake;
let transakAdapter: ProviderAdapter;
let coinbaseFake: CoinbaseFake;
let coinbaseAdapter: ProviderAdapter;
let run = 0;

const NO_QUOTE_FEES = { minBps: 300, maxBps: 500, source: 'https://example.com/fees' };
const noQuoteAdapter = { descriptor: { id: 'noquote', fees: NO_QUOTE_FEES }, mode: 'live' } as unknown as ProviderAdapter;
const providers = {
  adapter: (id: string) => ({ transak: transakAdapter, noquote: noQuoteAdapter, coinbase: coinbaseAdapter })[id],
} as unknown as Pick<ProviderRegistry, 'adapter'>;
// EUR at 0.92 per USD, as the local stack's sample rates.
const EUR_RATE = { numerator: 92n, denominator: 100n };
const rates: RateReader = {
  current: async () => ({ rates: new Map([['EUR', EUR_RATE]]), asOf: new Date(), source: 'sample' }),
} as unknown as RateReader;

beforeAll(async () => {
  acl = await startAclRedis('quotes');
  fake = await startTransakQuoteFake(FAKE_API_KEY);
  const transak = PROVIDER_MODULES.find((module) => module.descriptor.id === 'transak')!;
  transakAdapter = await transak.create(
    { API_KEY: FAKE_API_KEY, API_SECRET: FAKE_API_SECRET, API_URL: fake.url, GATEWAY_URL: fake.url },
    {
      mode: 'live',
      webhookUrl: 'https://pay.example.org/webhooks/transak',
      http: createProviderHttpClient({ maxAttempts: 1 }),
      tokens: {
        current: async () => Promise.reject(new Error('a quote needs no token')),
        known: async () => [],
        discard: async () => undefined,
      },
      now: Date.now,
    },
  );
  // Coinbase's Buy Quote prices per customer location, on its documented API's local fake (a CDP Ed25519 key).
  const cdp = generateKeyPairSync('ed25519');
  const jwk = cdp.privateKey.export({ format: 'jwk' });
  const keyId = '2636c881-b44e-4263-b05d-fb10a5ad1836';
  coinbaseFake = await startCoinbaseFake({ keyId, publicKey: cdp.publicKey, algorithm: 'EdDSA' });
  const coinbase = PROVIDER_MODULES.find((module) => module.descriptor.id === 'coinbase')!;
  coinbaseAdapter = await coinbase.create(
    {
      KEY_ID: keyId,
      KEY_SECRET: Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64'),
      API_URL: coinbaseFake.url,
    },
    {
      mode: 'live',
      webhookUrl: 'https://pay.example.org/webhooks/coinbase',
      http: createProviderHttpClient({ maxAttempts: 1 }),
      tokens: { current: async () => Promise.reject(new Error('no token')), known: async () => [], discard: async () => undefined },
      now: Date.now,
    },
  );
});
afterAll(async () => {
  await fake.close();
  await coinbaseFake.close();
  await acl.stop();
});
beforeEach(() => {
  fake.reset();
  coinbaseFake.reset();
});
afterEach(() => {
  expect(fake.problems).toEqual([]);
  expect(coinbaseFake.problems).toEqual([]);
});

interface Replica {
  service: QuoteService;
  registry: Registry;
}

/** Replicas sharing one Redis key space (a fresh one per test), each with its own connection and metrics. */
function replicas(count: number, settings: Partial<QuoteSettings> = {}, now?: () => number): Replica[] {
  run += 1;
  return Array.from({ length: count }, () => {
    const registry = new Registry();
    const service = new QuoteService({
      redis: acl.connect('payment-redirect'),
      keyPrefix: `${acl.prefix}`,
      providers,
      rates,
      settings: { cacheMs: 60_000, callTimeoutMs: 1_000, ...settings },
      metrics: quoteMetrics(registry),
      ...(now ? { now } : {}),
    });
    return { service, registry };
  });
}

const fiat = (minorUnits: bigint) => parseFiatAmount(`${minorUnits / 100n}.${(minorUnits % 100n).toString().padStart(2, '0')}`);
/** An amount of this test's own bands (the key prefix is the file's): test n quotes around n × 1000.00. */
const amountOf = (cents: bigint) => fiat(BigInt(run) * 100_000n + cents);

async function counted(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  const value = metric?.values.find((entry) => Object.entries(labels).every(([key, v]) => entry.labels[key] === v));
  return value?.value ?? 0;
}

const order = (cents: bigint, currency: CurrencyCode = 'EUR', provider = 'transak') => ({ provider, amount: amountOf(cents), currency });

describe('quote service', () => {
  it('asks the provider once per band however many pages load at once on however many replicas', async () => {
    const group = replicas(3);
    fake.latencyMs = 150;
    fake.feeBps = 250;
    // 60 page loads at once, spread over three replicas, with amounts inside one band.
    const base = order(0n).amount.minorUnits;
    const band = quoteBandOf(base);
    const loads = Array.from({ length: 60 }, (_, i) => {
      const amount = fiat(band.lower + (BigInt(i) % (band.upper - band.lower)));
      return group[i % 3]!.service.quote({ provider: 'transak', amount, currency: 'EUR' }, { waitMs: 1_500 });
    });
    const quotes = await Promise.all(loads);
    expect(fake.requests).toHaveLength(1);
    expect(quotes.every((quote) => quote.basis === 'quote')).toBe(true);
    // Each row scaled to its own amount: Transak takes its fee out of the amount, so the customer pays the amount.
    for (const [i, quote] of quotes.entries()) {
      const cents = band.lower + (BigInt(i) % (band.upper - band.lower));
      expect(quote.total).toBe(fiat(cents).text);
      // 97.5 % of the amount in USDC (the fake's 2.5 % fee), truncated: within a base unit per cent of scaling.
      expect(quote.usdc).toBeLessThanOrEqual((cents * 10_000n * 9_750n) / 10_000n + 1n);
      expect(quote.usdc).toBeGreaterThanOrEqual((cents * 10_000n * 9_750n) / 10_000n - 10_000n);
    }
    const calls = await Promise.all(
      group.map(async ({ registry }) => counted(registry, 'payment_redirect_quote_calls_total', { outcome: 'ok' })),
    );
    expect(calls.reduce((sum, n) => sum + n, 0)).toBe(1);

    // Within the period: answered from Redis, no call.
    const again = await group[2]!.service.quote(order(0n), { waitMs: 1_500 });
    expect(again).toMatchObject({ basis: 'quote', quotedAt: quotes[0]!.quotedAt });
    expect(fake.requests).toHaveLength(1);
    expect(await counted(group[2]!.registry, 'payment_redirect_quote_cache_total', { provider: 'transak', result: 'hit' })).toBeGreaterThan(
      0,
    );
  });

  it('asks once for each band and currency', async () => {
    const [{ service }] = replicas(1) as [Replica];
    const low = order(0n);
    const next = quoteBandOf(low.amount.minorUnits).upper;
    const other = { ...low, amount: fiat(next) };
    await Promise.all([
      service.quote(low, { waitMs: 1_500 }),
      service.quote(other, { waitMs: 1_500 }),
      service.quote({ ...low, currency: 'USD' }, { waitMs: 1_500 }),
    ]);
    expect(fake.requests).toHaveLength(3);
    await Promise.all([service.quote(low, { waitMs: 1_500 }), service.quote(other, { waitMs: 1_500 })]);
    expect(fake.requests).toHaveLength(3);
  });

  it('serves a quote past its period while one request refreshes it in the background', async () => {
    let now = Date.now();
    const group = replicas(2, { cacheMs: 10_000 }, () => now);
    const first = await group[0]!.service.quote(order(0n), { waitMs: 1_500 });
    now += 10_001;
    fake.latencyMs = 200;
    const [a, b] = await Promise.all(group.map(async ({ service }) => service.quote(order(0n), { waitMs: 1_500 })));
    // Both got the older quote at once; one refresh was started among them.
    expect(a).toEqual(first);
    expect(b).toEqual(first);
    await Promise.all(group.map(async ({ service }) => service.settled()));
    expect(fake.requests).toHaveLength(2);
    const refreshed = await group[1]!.service.quote(order(0n), { waitMs: 1_500 });
    expect(refreshed.quotedAt!.getTime()).toBe(now);
    expect(await counted(group[0]!.registry, 'payment_redirect_quote_cache_total', { result: 'stale' })).toBe(1);
    // Past the period and a half it is no longer shown: the next load waits for a fresh one.
    now += 15_001;
    fake.latencyMs = 0;
    const fresh = await group[0]!.service.quote(order(0n), { waitMs: 1_500 });
    expect(fresh.quotedAt!.getTime()).toBe(now);
    expect(fake.requests).toHaveLength(3);
  });

  it('gives the estimate from the documented fees when the provider refuses, and keeps it for the period', async () => {
    const [{ service, registry }] = replicas(1) as [Replica];
    fake.script = () => fake.refusal(500, 'pricing unavailable');
    const row = await service.quote(order(0n, 'USD'), { waitMs: 1_500 });
    const usdCents = order(0n, 'USD').amount.minorUnits;
    expect(row).toEqual({
      provider: 'transak',
      basis: 'estimate',
      usdc: expectUsdc({ usdCents, fees: transakAdapter.descriptor.fees }).usdc,
      total: order(0n, 'USD').amount.text,
      currency: 'USD',
    });
    await service.quote(order(0n, 'USD'), { waitMs: 1_500 });
    expect(fake.requests).toHaveLength(1);
    expect(await counted(registry, 'payment_redirect_quote_calls_total', { provider: 'transak', outcome: 'refused' })).toBe(1);
    expect(await counted(registry, 'payment_redirect_quotes_served_total', { provider: 'transak', basis: 'estimate' })).toBe(2);
  });

  it('gives the estimate when the provider is slow, and the late quote to the next page', async () => {
    const [{ service, registry }] = replicas(1, { callTimeoutMs: 2_000 }) as [Replica];
    fake.latencyMs = 700;
    const started = Date.now();
    const row = await service.quote(order(0n), { waitMs: 300 });
    expect(Date.now() - started).toBeLessThan(600);
    expect(row.basis).toBe('estimate');
    await service.settled();
    expect((await service.quote(order(0n), { waitMs: 300 })).basis).toBe('quote');
    expect(fake.requests).toHaveLength(1);
    expect(await counted(registry, 'payment_redirect_quote_calls_total', { outcome: 'ok' })).toBe(1);
  });

  it('counts a call past QUOTE_TIMEOUT_MS as a timeout', async () => {
    const [{ service, registry }] = replicas(1, { callTimeoutMs: 300 }) as [Replica];
    fake.script = () => 'hang';
    expect((await service.quote(order(0n), { waitMs: 1_000 })).basis).toBe('estimate');
    expect(await counted(registry, 'payment_redirect_quote_calls_total', { provider: 'transak', outcome: 'timeout' })).toBe(1);
  });

  it("estimates a provider without a quote API as Process Payment does: its documented fees on the order's USD value", async () => {
    const [{ service }] = replicas(1) as [Replica];
    const row = await service.quote(order(0n, 'EUR', 'noquote'), { waitMs: 1_500 });
    const attempt = attemptExpectation({
      amount: order(0n).amount,
      currency: 'EUR',
      rate: EUR_RATE,
      fees: NO_QUOTE_FEES,
      now: new Date(),
      windowHours: 24,
    });
    expect(row).toEqual({ provider: 'noquote', basis: 'estimate', usdc: attempt.usdc, total: order(0n).amount.text, currency: 'EUR' });
    expect(fake.requests).toHaveLength(0);
  });

  it('asks the provider again over a cached quote it cannot read', async () => {
    const [{ service }] = replicas(1) as [Replica];
    const key = `${acl.prefix}:provider-quotes:transak:EUR:${quoteBandOf(order(0n).amount.minorUnits).index}`;
    await acl.connect('payment-redirect').set(key, '{"v":1,"at":1,"amount":"1e3"}', 'PX', 60_000);
    expect((await service.quote(order(0n), { waitMs: 1_500 })).basis).toBe('quote');
    expect(fake.requests).toHaveLength(1);
  });

  it('still quotes while Redis is down, each process asking the provider itself', async () => {
    const down = new IORedis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    down.on('error', () => undefined);
    run += 1;
    const service = new QuoteService({
      redis: down,
      keyPrefix: acl.prefix,
      providers,
      rates,
      settings: { cacheMs: 60_000, callTimeoutMs: 1_000 },
    });
    const rows = await Promise.all([service.quote(order(0n), { waitMs: 1_500 }), service.quote(order(1n), { waitMs: 1_500 })]);
    expect(rows.map((row) => row.basis)).toEqual(['quote', 'quote']);
    // One promise per band within the process still shares the call.
    expect(fake.requests).toHaveLength(1);
    down.disconnect();
  });

  describe('a quote priced per customer location (Coinbase)', () => {
    const coinbaseOrder = (cents: bigint, location?: { country: string; subdivision?: string }) => ({
      ...order(cents, 'USD', 'coinbase'),
      ...(location ? { location } : {}),
    });
    const quoteCalls = () => coinbaseFake.requests.filter((request) => request.path === '/onramp/v1/buy/quote');

    it('asks once per band and location however many pages load, and keys the band by the location', async () => {
      const group = replicas(3);
      coinbaseFake.latencyMs = 100;
      const loads = Array.from({ length: 30 }, (_, i) =>
        group[i % 3]!.service.quote(coinbaseOrder(500n, { country: 'GB' }), { waitMs: 1_500 }),
      );
      const quotes = await Promise.all(loads);
      expect(quotes.every((quote) => quote.basis === 'quote')).toBe(true);
      expect(quoteCalls()).toHaveLength(1);
      expect(JSON.parse(quoteCalls()[0]!.body)).toMatchObject({ country: 'GB', paymentCurrency: 'USD' });
      const band = quoteBandOf(coinbaseOrder(500n).amount.minorUnits).index;
      const redis = acl.connect('payment-redirect');
      expect(await redis.exists(`${acl.prefix}:provider-quotes:coinbase:USD:${band}:GB`)).toBe(1);

      // Another country, another state: their own quotes.
      const [canada, texas] = await Promise.all([
        group[0]!.service.quote(coinbaseOrder(500n, { country: 'CA' }), { waitMs: 1_500 }),
        group[1]!.service.quote(coinbaseOrder(500n, { country: 'US', subdivision: 'TX' }), { waitMs: 1_500 }),
      ]);
      expect([canada.basis, texas.basis]).toEqual(['quote', 'quote']);
      const asked = quoteCalls().map((request) => JSON.parse(request.body) as { country: string; subdivision?: string });
      expect(asked.map(({ country, subdivision }) => [country, subdivision]).sort()).toEqual([
        ['CA', undefined],
        ['GB', undefined],
        ['US', 'TX'],
      ]);
    });

    it('gives the estimate, asking nothing, where the location is unknown or not enough (a US customer without a state)', async () => {
      const [{ service }] = replicas(1) as [Replica];
      const unknown = await service.quote(coinbaseOrder(700n), { waitMs: 1_500 });
      const noState = await service.quote(coinbaseOrder(700n, { country: 'US' }), { waitMs: 1_500 });
      expect([unknown.basis, noState.basis]).toEqual(['estimate', 'estimate']);
      expect(await service.providerQuote(coinbaseOrder(700n, { country: 'US' }), { waitMs: 1_500 })).toBeUndefined();
      expect(quoteCalls()).toHaveLength(0);
    });

    it('gives Process Payment the quote the page showed to a customer in the same place', async () => {
      const [page, payment] = replicas(2) as [Replica, Replica];
      const shown = await page.service.quote(coinbaseOrder(900n, { country: 'US', subdivision: 'NY' }), { waitMs: 1_500 });
      const expected = await payment.service.providerQuote(coinbaseOrder(900n, { country: 'US', subdivision: 'NY' }), { waitMs: 1_500 });
      expect(shown.basis).toBe('quote');
      expect(expected).toEqual(shown);
      expect(quoteCalls()).toHaveLength(1);
    });
  });

  it('gives Process Payment the quote the page showed', async () => {
    const [page, payment] = replicas(2) as [Replica, Replica];
    const shown = await page.service.quote(order(1234n), { waitMs: 1_500 });
    const expected = await payment.service.providerQuote(order(1234n), { waitMs: 1_500 });
    expect(expected).toEqual(shown);
    expect(fake.requests).toHaveLength(1);
  });
});
