import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createTestRedis, type TestRedis } from '@gateway/testkit';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { FAKE_API_SECRET, startTransakFake, TRANSAK_SETTINGS, transakAt, transakTokenKey, type TransakFake } from '../support/transak';

// Transak through payment-redirect against a local Transak: replicas share one partner access
// token (two app instances, each its own Redis connection, one REDIS_PREFIX), and a provider that
// fails gives the customer the error page and a JSON client the error shape, never a 500.

let fake: TransakFake;
// One wallet takes every payment here (40 at once in the latency test): more than one order's ORDER_ATTEMPTS_MAX.
const fixture = paymentRedirectFixture('transak_sessions', {
  ORDER_ATTEMPTS_MAX: '1000',
  // Its URLs are set in beforeAll, once the fake listens.
  ...TRANSAK_SETTINGS,
});
let config: PaymentRedirectConfig;
let replicaA: FastifyInstance;
let replicaB: FastifyInstance;
let secondConnection: TestRedis;
let addressIn: string;
const temporary = '0x4444444444444444444444444444444444444444' as EvmAddress;

const query = () => ({ address: addressIn, amount: '75.00', provider: 'transak', email: 'jane@shop.io', currency: 'USD' });
const pay = (app: FastifyInstance, accept = 'application/json') =>
  app.inject({ method: 'GET', url: '/process-payment.php', query: query(), headers: { accept } });

beforeAll(async () => {
  fake = await startTransakFake();
  config = fixture.config({ ...transakAt(fake.url), CHECKOUT_TIMEOUT_MS: '1500' });
  secondConnection = createTestRedis('transak_sessions');
  replicaA = await fixture.build(config);
  replicaB = await fixture.build(config, { redis: secondConnection });
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=transak' });
});
beforeEach(() => fake.reset());
afterAll(async () => {
  await secondConnection.redis.quit();
  await fake.close();
});

describe('replicas share the partner access token', () => {
  it('concurrent checkouts on two replicas: one token minted, every session opened with it', async () => {
    fake.latencyMs = 100;
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => pay(i % 2 ? replicaA : replicaB)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(12).fill(200));
    expect(fake.refreshes).toHaveLength(1);
    expect(fake.sessions).toHaveLength(12);
    expect(new Set(fake.sessions.map((session) => session.headers['access-token']))).toEqual(new Set([fake.currentToken]));
    expect(fake.problems).toEqual([]);
    const bodies = responses.map((response) => response.json());
    expect(new Set(bodies.map((body) => body.payment_id)).size).toBe(12);
    for (const body of bodies) {
      expect(new URL(body.checkout_url).origin).toBe('https://global-stg.transak.com');
      expect(Date.parse(body.checkout_expires_at) - Date.now()).toBeGreaterThan(280_000);
    }
  });

  it('an added replica uses the stored token and refreshes nothing', async () => {
    const added = await fixture.build(config, { redis: secondConnection });
    expect((await pay(added)).statusCode).toBe(200);
    expect(fake.refreshes).toHaveLength(0);
    await added.close();
  });

  it('a signed webhook verifies on either replica with the shared token and updates the payment', async () => {
    const paymentId = (await pay(replicaA)).json().payment_id as string;
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ webhookData: { id: 'tk-1', partnerOrderId: paymentId, status: 'PROCESSING' } })}`;
    const jwt = `${unsigned}.${createHmac('sha256', fake.currentToken!).update(unsigned).digest('base64url')}`;
    const response = await replicaB.inject({ method: 'POST', url: '/webhooks/transak', payload: { data: jwt } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-webhook-outcome']).toBe('updated');
    const forged = await replicaA.inject({ method: 'POST', url: '/webhooks/transak', payload: { data: `${unsigned}.${'A'.repeat(43)}` } });
    expect(forged.statusCode).toBe(401);
    const { rows } = await fixture.db.pool.query(
      'SELECT provider_status, provider_raw_status, provider_reference FROM payments WHERE id = $1',
      [paymentId],
    );
    expect(rows[0]).toEqual({ provider_status: 'pending', provider_raw_status: 'PROCESSING', provider_reference: 'tk-1' });
  });

  it('session checkout latency with Transak answering in 300 ms', async () => {
    fake.latencyMs = 300;
    const durations: number[] = [];
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const started = performance.now();
        expect((await pay(i % 2 ? replicaA : replicaB)).statusCode).toBe(200);
        durations.push(performance.now() - started);
      }),
    );
    durations.sort((a, b) => a - b);
    const p99 = durations[Math.ceil(durations.length * 0.99) - 1]!;
    console.info(
      `transak session checkout, 40 concurrent, provider at 300 ms: p50 ${durations[20]!.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`,
    );
    expect(p99).toBeLessThan(2000);
  });
});

describe('Transak failing', () => {
  it.each([
    [
      'answers 503',
      () => (fake.answerSession = () => ({ status: 503, body: '{"error":{"message":"maintenance"}}' })),
      503,
      'provider_unavailable',
    ],
    ['does not answer in time', () => (fake.answerSession = () => 'hang'), 503, 'provider_unavailable'],
    ['answers malformed JSON', () => (fake.answerSession = () => ({ status: 200, body: '{"data":' })), 502, 'provider_error'],
    [
      'refuses the key',
      () => (fake.answerRefresh = () => ({ status: 401, body: '{"error":{"message":"bad key"}}' })),
      502,
      'provider_error',
    ],
  ] as const)('%s: the customer gets the error page, a JSON client the error shape, never a 500', async (_name, arrange, status, code) => {
    // A fresh token store state for the refusal case: no token stored yet.
    await fixture.cache.redis.del(transakTokenKey(config.raw.REDIS_PREFIX));
    arrange();
    const page = await pay(replicaA, 'text/html');
    expect(page.statusCode).toBe(status);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('Transak');
    expect(page.body).toContain('Your card has not been charged.');
    const json = await pay(replicaB);
    expect(json.statusCode).toBe(status);
    expect(json.json()).toMatchObject({ status: 'error', code, param: 'provider' });
    expect(json.body).not.toContain(FAKE_API_SECRET);
  });
});
