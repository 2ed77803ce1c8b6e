import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { createMetricsServer } from '@gateway/http';
import { checkoutDeadlineMs, PROVIDER_MODULES } from '@gateway/providers';
import { waitFor } from '@gateway/testkit';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { startTransakFake, TRANSAK_SETTINGS, transakAt, transakTokenKey, type TransakFake } from '../support/transak';

// Per-provider numbers as Prometheus scrapes them from the metrics server, after checkouts against
// a local Transak (token + session) that answers, fails, or answers too late; and the checkout
// deadline the provider's descriptor sets, over both calls of the flow.

let fake: TransakFake;
const transak = PROVIDER_MODULES.find((module) => module.descriptor.id === 'transak')!;
const fixture = paymentRedirectFixture('provider_metrics', {
  // Its URLs are set in beforeAll, once the fake listens.
  ...TRANSAK_SETTINGS,
  // Transak fails here on purpose, call after call, to be counted: its circuit (checkout-signals' tests) stays closed.
  PROVIDER_CIRCUIT_MIN_CALLS: '100000',
});
let config: PaymentRedirectConfig;
let app: FastifyInstance;
let metricsServer: FastifyInstance;
let addressIn: string;
const temporary = '0x5555555555555555555555555555555555555555' as EvmAddress;
const tokenKey = () => transakTokenKey(config.raw.REDIS_PREFIX);

const pay = (accept = 'application/json', through = app, address = addressIn) =>
  through.inject({
    method: 'GET',
    url: '/process-payment.php',
    query: { address, amount: '75.00', provider: 'transak', email: 'jane@shop.io', currency: 'USD' },
    headers: { accept },
  });

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

async function scrape(server = metricsServer): Promise<Sample[]> {
  const response = await server.inject({ url: '/metrics' });
  expect(response.statusCode).toBe(200);
  return response.body
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((label) => [label[1]!, label[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample of `name` carrying `labels` (and others), 0 when Prometheus would have none. */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string>): number {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** What changed between two scrapes, for the samples of `name` with `labels`. */
const delta = (before: Sample[], after: Sample[], name: string, labels: Record<string, string>) =>
  sampleValue(after, name, labels) - sampleValue(before, name, labels);

beforeAll(async () => {
  fake = await startTransakFake();
  config = fixture.config({ ...transakAt(fake.url) });
  app = await fixture.build(config);
  metricsServer = await createMetricsServer(app);
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=metrics' });
});
beforeEach(() => fake.reset());
afterAll(async () => {
  await metricsServer.close();
  await fake.close();
});

describe('per-provider metrics', () => {
  it('a checkout: created, its token and session calls timed, one token minted; a second checkout mints none', async () => {
    await fixture.cache.redis.del(tokenKey());
    const before = await scrape();
    expect((await pay()).statusCode).toBe(200);
    expect((await pay()).statusCode).toBe(200);
    const after = await scrape();
    const transak = { provider: 'transak', service: 'payment-redirect' };
    expect(delta(before, after, 'payment_redirect_provider_checkouts_total', { ...transak, outcome: 'created' })).toBe(2);
    expect(delta(before, after, 'payment_redirect_provider_tokens_minted_total', transak)).toBe(1);
    expect(
      delta(before, after, 'payment_redirect_provider_call_duration_seconds_count', { ...transak, call: 'token', outcome: 'ok' }),
    ).toBe(1);
    expect(
      delta(before, after, 'payment_redirect_provider_call_duration_seconds_count', { ...transak, call: 'session', outcome: 'ok' }),
    ).toBe(2);
    expect(
      sampleValue(after, 'payment_redirect_provider_call_duration_seconds_sum', { ...transak, call: 'session', outcome: 'ok' }),
    ).toBeGreaterThan(0);
    // Histogram buckets are cumulative: every session call is under +Inf.
    expect(
      sampleValue(after, 'payment_redirect_provider_call_duration_seconds_bucket', {
        ...transak,
        call: 'session',
        outcome: 'ok',
        le: '+Inf',
      }),
    ).toBe(sampleValue(after, 'payment_redirect_provider_call_duration_seconds_count', { ...transak, call: 'session', outcome: 'ok' }));
    expect(fake.problems).toEqual([]);
  });

  it.each([
    [
      'answers 503',
      () => (fake.answerSession = () => ({ status: 503, body: '{"error":{"message":"maintenance"}}' })),
      'http_5xx',
      'http_5xx',
    ],
    ['answers 429', () => (fake.answerSession = () => ({ status: 429, body: '{}' })), 'rate_limited', 'rate_limited'],
    ['answers 400', () => (fake.answerSession = () => ({ status: 400, body: '{"error":{"message":"bad"}}' })), 'http_4xx', 'http_4xx'],
    ['answers malformed JSON', () => (fake.answerSession = () => ({ status: 200, body: '{"data":' })), 'ok', 'malformed'],
    ['answers without a widget URL', () => (fake.answerSession = () => ({ status: 200, body: '{"data":{}}' })), 'ok', 'malformed'],
  ] as const)('a session call that %s: the call by its outcome, the checkout failure by its kind', async (_name, arrange, call, kind) => {
    const before = await scrape();
    arrange();
    const response = await pay();
    expect(response.statusCode).not.toBe(500);
    expect(response.json()).toMatchObject({ status: 'error', param: 'provider' });
    const after = await scrape();
    const transak = { provider: 'transak' };
    expect(
      delta(before, after, 'payment_redirect_provider_call_duration_seconds_count', { ...transak, call: 'session', outcome: call }),
    ).toBe(1);
    expect(delta(before, after, 'payment_redirect_provider_checkout_failures_total', { ...transak, kind })).toBe(1);
    expect(delta(before, after, 'payment_redirect_provider_checkouts_total', { ...transak, outcome: 'created' })).toBe(0);
  });

  it('a provider not reached: network failures, by kind', async () => {
    const nowhere = 'http://127.0.0.1:9';
    const unreachableConfig = fixture.config({ ...transakAt(nowhere) });
    const unreachable = await fixture.build(unreachableConfig);
    const server = await createMetricsServer(unreachable);
    try {
      await fixture.cache.redis.del(tokenKey());
      const response = await pay('application/json', unreachable, sealAddressIn(temporary, unreachableConfig.keys));
      expect(response.statusCode).toBe(503);
      const samples = await scrape(server);
      expect(
        sampleValue(samples, 'payment_redirect_provider_call_duration_seconds_count', {
          provider: 'transak',
          call: 'token',
          outcome: 'network',
        }),
      ).toBe(1);
      expect(sampleValue(samples, 'payment_redirect_provider_checkout_failures_total', { provider: 'transak', kind: 'network' })).toBe(1);
      expect(sampleValue(samples, 'payment_redirect_provider_checkouts_total', { provider: 'transak', outcome: 'unavailable' })).toBe(1);
    } finally {
      await server.close();
      await unreachable.close();
    }
  });

  it('webhooks accepted and refused are counted by provider', async () => {
    const paymentId = (await pay()).json().payment_id as string;
    const before = await scrape();
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { webhookData: { id: 'tk-9', partnerOrderId: paymentId, status: 'PROCESSING' } };
    const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    const signed = `${unsigned}.${createHmac('sha256', fake.currentToken!).update(unsigned).digest('base64url')}`;
    expect((await app.inject({ method: 'POST', url: '/webhooks/transak', payload: { data: signed } })).statusCode).toBe(200);
    const forged = await app.inject({ method: 'POST', url: '/webhooks/transak', payload: { data: `${unsigned}.${'A'.repeat(43)}` } });
    expect(forged.statusCode).toBe(401);
    const after = await scrape();
    expect(delta(before, after, 'payment_redirect_provider_webhooks_total', { provider: 'transak', outcome: 'updated' })).toBe(1);
    expect(delta(before, after, 'payment_redirect_provider_webhooks_total', { provider: 'transak', outcome: 'refused' })).toBe(1);
    expect(
      delta(before, after, 'payment_redirect_provider_statuses_total', { provider: 'transak', status: 'pending', source: 'webhook' }),
    ).toBe(1);
  });
});

describe("the checkout deadline, from the provider's descriptor", () => {
  it('session providers state theirs; url flows take the default', () => {
    expect(checkoutDeadlineMs(transak.descriptor)).toBe(12_000);
    expect(checkoutDeadlineMs({ flow: 'signed-url' })).toBe(5_000);
    expect(checkoutDeadlineMs({ flow: 'url', checkoutDeadlineMs: 3_000 })).toBe(3_000);
  });

  it('a provider slower than it: the error page and the error shape, never a 500, and the second call cut at the deadline', async () => {
    jest.replaceProperty(transak.descriptor, 'checkoutDeadlineMs', 1_500);
    try {
      // Each call takes 1 s: the token arrives at 1 s, the session call would answer at 2 s.
      fake.latencyMs = 1_000;
      const before = await scrape();
      for (const accept of ['text/html', 'application/json']) {
        await fixture.cache.redis.del(tokenKey());
        const started = performance.now();
        const response = await pay(accept);
        const elapsed = performance.now() - started;
        expect(response.statusCode).toBe(503);
        if (accept === 'text/html') {
          expect(response.headers['content-type']).toMatch(/text\/html/);
          expect(response.body).toContain('Transak');
          expect(response.body).toContain('Your card has not been charged.');
        } else {
          expect(response.json()).toMatchObject({ status: 'error', code: 'provider_unavailable', param: 'provider' });
        }
        expect(elapsed).toBeGreaterThanOrEqual(1_450);
        expect(elapsed).toBeLessThan(1_900);
      }
      // Both session calls were sent, and both abandoned before their answer.
      expect(fake.refreshes).toHaveLength(2);
      expect(fake.sessions).toHaveLength(2);
      await waitFor(
        'both session calls abandoned',
        () => fake.abandoned.filter((path) => path === '/api/v2/auth/session').length === 2,
        2_000,
        20,
      );
      const after = await scrape();
      expect(
        delta(before, after, 'payment_redirect_provider_call_duration_seconds_count', {
          provider: 'transak',
          call: 'session',
          outcome: 'timeout',
        }),
      ).toBe(2);
      expect(delta(before, after, 'payment_redirect_provider_checkout_failures_total', { provider: 'transak', kind: 'timeout' })).toBe(2);
    } finally {
      jest.restoreAllMocks();
    }
  });
});
