import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import Fastify from 'fastify';
import IORedis from 'ioredis';
import { Registry } from 'prom-client';
import { parseFiatAmount, providerOptions, sealAddressIn, servesCountry, type EvmAddress } from '@gateway/domain';
import { CheckoutMeasureRepository, createPool } from '@gateway/db/payment-redirect';
import { TEST_REDIS_URL } from '@gateway/testkit';
import { providerCircuitMetrics } from '../../src/metrics';
import { CheckoutMeasures } from '../../src/services/checkout-signals/checkout-measures';
import { liveCheckoutPorts } from '../../src/services/checkout-signals/live-checkout-ports';
import { ProviderCircuitBreaker } from '../../src/services/checkout-signals/provider-circuit-breaker';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { startTransakFake, TRANSAK_SETTINGS, transakAt, type TransakFake } from '../support/transak';

// The hosted checkout's rows on the app's real signals: payments and deposits seeded in PostgreSQL
// (the measured conversion), Transak's circuit opened by its fake failing real checkouts (Redis),
// the country from the header the operator names. The ranking itself is packages/domain's, the
// words the view model's; here, that each signal reaches the page, and that each one failing
// leaves it whole.

let fake: TransakFake;
const fixture = paymentRedirectFixture('checkout_choices', {
  ...TRANSAK_SETTINGS,
  CHECKOUT_TIMEOUT_MS: '1500',
  CHECKOUT_RANKING_MIN_ATTEMPTS: '10',
  CUSTOMER_COUNTRY_HEADER: 'CF-IPCountry',
  PROVIDER_CIRCUIT_MIN_CALLS: '2',
  PROVIDER_CIRCUIT_FAILURE_PERCENT: '50',
  PROVIDER_CIRCUIT_COOL_OFF_SECONDS: '5',
});
let app: FastifyInstance;
let addressIn: string;
const temporary = '0x4646464646464646464646464646464646464646' as EvmAddress;
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const order = () => providerOptions(parseFiatAmount('50.00'), 'USD', undefined, app.providers.offered);
const available = () => order().flatMap((option) => (option.status === 'available' ? [option.provider.id] : []));

/** The page's rows, in order: each provider's id and the facts it states ("measured here", "May not serve …"). */
async function page(headers: Record<string, string> = {}): Promise<Array<{ id: string; facts: string[] }>> {
  const response = await app.inject({
    method: 'GET',
    url: '/pay.php',
    query: { address: addressIn, amount: '50.00', email: 'jane@shop.io', currency: 'USD' },
    headers,
  });
  expect(response.statusCode).toBe(200);
  return [...response.body.matchAll(/<a class="provider" href="[^"]+" data-provider="([a-z]+)">([\s\S]*?)<\/a>/g)].map((match) => ({
    id: match[1]!,
    facts: [...match[2]!.matchAll(/<span class="fact [a-z-]+">(.*?)<\/span>/g)].map((fact) => fact[1]!),
  }));
}
const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id);
const pay = () =>
  app.inject({
    method: 'GET',
    url: '/process-payment.php',
    query: { address: addressIn, amount: '75.00', provider: 'transak', email: 'jane@shop.io', currency: 'USD' },
    headers: { accept: 'application/json' },
  });

/** `attempts` checkouts of `provider` in their own orders, the first `paid` of them paid after `minutes`. */
async function seedAttempts(provider: string, attempts: number, paid: number, minutes: number): Promise<void> {
  const pool = fixture.db.pool;
  for (let i = 0; i < attempts; i += 1) {
    const { walletId: wallet } = await fixture.insertWallet({
      temporary: hex(20) as EvmAddress,
      addressIn: randomUUID(),
      callbackUrl: `https://shop.io/ipn?order=${provider}-${i}`,
      hdIndex: BigInt(1000 + Math.floor(Math.random() * 1e9)),
    });
    const createdAt = new Date(Date.now() - 3 * 3600_000);
    await pool.query(
      `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, status, checkout_url, created_at)
       VALUES ($1, $2, '50.00', 'USD', $3, 'buyer@example.com', 'redirected', 'https://checkout.example/c', $4)`,
      [randomUUID(), wallet, provider, createdAt],
    );
    if (i >= paid) continue;
    await pool.query(
      `INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, block_hash, wallet_id, from_address, amount, status, seen_at, final_at)
       VALUES (137, $1, 0, $2, $3, $4, $5, 48000000, 'final', $6, $6)`,
      [hex(32), 1000 + i, hex(32), wallet, hex(20), new Date(createdAt.getTime() + minutes * 60_000)],
    );
  }
}

let first: string;
let second: string;

beforeAll(async () => {
  fake = await startTransakFake();
  const config = fixture.config(transakAt(fake.url));
  app = await fixture.build(config);
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=choices' });
  // The operator's first two providers (neither Transak, whose checkouts below add attempts of their own).
  [first, second] = order()
    .filter((option) => option.status === 'available' && option.provider.id !== 'transak')
    .map((option) => option.provider.id) as [string, string];
  // Enough attempts to count (CHECKOUT_RANKING_MIN_ATTEMPTS=10): the second converts 8 in 10 in 7 minutes, the first 2 in 10.
  await seedAttempts(first, 10, 2, 30);
  await seedAttempts(second, 10, 8, 7);
}, 60_000);

afterAll(async () => {
  await fake?.close();
});

describe('the hosted checkout on its signals', () => {
  it('ranks the provider that converts better here ahead, with its measured time', async () => {
    const rows = await page();
    expect(ids(rows).indexOf(second)).toBeLessThan(ids(rows).indexOf(first));
    expect(rows.find((row) => row.id === second)!.facts.join(' ')).toMatch(/7 min.*measured here/);
    // Those without enough attempts keep the page's own order (the operator's, providers made for USD first).
    const offered = new Map(app.providers.offered.map((provider) => [provider.id, provider]));
    const madeForUsd = (id: string) => offered.get(id)!.currency === 'USD';
    const pageOrder = [...available().filter(madeForUsd), ...available().filter((id) => !madeForUsd(id))];
    const unmeasured = (list: string[]) => list.filter((id) => id !== first && id !== second);
    expect(unmeasured(ids(rows))).toEqual(unmeasured(pageOrder));
  });

  it("puts the providers serving the proxy's country first and marks the others; never reads Accept-Language", async () => {
    const rows = await page({ 'cf-ipcountry': 'us' });
    const offered = new Map(app.providers.offered.map((provider) => [provider.id, provider]));
    const serves = rows.map((row) => servesCountry(offered.get(row.id)!, 'US'));
    expect(serves).toEqual([...serves].sort((a, b) => ['yes', 'unknown', 'no'].indexOf(a) - ['yes', 'unknown', 'no'].indexOf(b)));
    expect(serves).toContain('yes');
    for (const [index, row] of rows.entries()) {
      expect(row.facts.some((fact) => fact.includes('May not serve customers in'))).toBe(serves[index] === 'no');
    }
    // Every available provider is still there: a country orders, it never hides.
    expect(ids(rows).sort()).toEqual(available().sort());

    const byLanguage = await page({ 'accept-language': 'de-DE,de;q=0.9' });
    expect(byLanguage.flatMap((row) => row.facts).some((fact) => fact.includes('May not serve'))).toBe(false);
    expect(ids(byLanguage)).toEqual(ids(await page()));
    // A header that is no country (a misconfigured proxy), or Cloudflare's "unknown": no country, no error.
    for (const value of ['Germany', 'XX']) expect(ids(await page({ 'cf-ipcountry': value }))).toEqual(ids(await page()));
  });

  it('takes a provider whose checkouts fail off the page for the cool-off, refuses its checkouts meanwhile, then lists it again after a good trial', async () => {
    fake.answerSession = () => ({ status: 503, body: JSON.stringify({ error: { statusCode: 503, message: 'Service Unavailable' } }) });
    expect((await pay()).statusCode).toBe(503);
    expect((await pay()).statusCode).toBe(503);
    const sessionsWhenOpened = fake.sessions.length;
    expect(ids(await page())).not.toContain('transak');

    // Meanwhile a Process Payment naming Transak is refused at once, without a call to it.
    const refused = await pay();
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({ code: 'provider_unavailable', param: 'provider' });
    expect(fake.sessions).toHaveLength(sessionsWhenOpened);
    const metrics = await app.metrics.metrics();
    expect(metrics).toContain('payment_redirect_provider_circuit_openings_total{provider="transak",service="payment-redirect"} 1');
    expect(metrics).toContain(
      'payment_redirect_provider_checkout_failures_total{provider="transak",kind="circuit_open",service="payment-redirect"} 1',
    );
    expect(metrics).toContain('payment_redirect_provider_circuit_state{provider="transak",state="open",service="payment-redirect"} 1');

    // The cool-off over, Transak is back on the page; the next customer's checkout is its trial, and it works.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    fake.answerSession = undefined;
    expect(ids(await page())).toContain('transak');
    expect((await pay()).statusCode).toBe(200);
    expect(await app.metrics.metrics()).toContain(
      'payment_redirect_provider_circuit_state{provider="transak",state="closed",service="payment-redirect"} 1',
    );
    expect(fake.problems).toEqual([]);
  }, 20_000);
});

describe('with its signals failing', () => {
  it('lists every provider, measures none, knows no country: no Redis, no database', async () => {
    const down = new IORedis(TEST_REDIS_URL.replace(/:\d+$/, ':1'), {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    down.on('error', () => undefined);
    const deadPool = createPool({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
    deadPool.on('error', () => undefined);
    const logs: string[] = [];
    const { log } = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => logs.push(line) } } });
    try {
      const ports = liveCheckoutPorts({
        quotes: app.quoteService,
        circuit: new ProviderCircuitBreaker({
          redis: down,
          prefix: 'down',
          settings: { windowSeconds: 60, minCalls: 2, failurePercent: 50, coolOffSeconds: 5 },
          metrics: providerCircuitMetrics(new Registry()),
          log,
        }),
        measures: new CheckoutMeasures({ repository: new CheckoutMeasureRepository(deadPool), windowDays: 30, log }),
        locationHeaders: { country: 'cf-ipcountry', subdivision: 'cf-region-code' },
        rankingMinAttempts: 10,
        log,
      });
      expect(await ports.signals!.listed(available())).toEqual(available());
      expect((await ports.signals!.measured()).size).toBe(0);
      expect(ports.customerLocation!({ 'cf-ipcountry': 'Germany' })).toBeUndefined();
      expect(ports.customerLocation!({ 'accept-language': 'de' })).toBeUndefined();
      expect(ports.customerLocation!({ 'cf-ipcountry': 'de' })).toEqual({ country: 'DE' });
      expect(ports.customerLocation!({ 'cf-ipcountry': 'US', 'cf-region-code': 'TX' })).toEqual({ country: 'US', subdivision: 'TX' });
      // A subdivision that is not one (or another country's) leaves the country known.
      expect(ports.customerLocation!({ 'cf-ipcountry': 'US', 'cf-region-code': 'Texas' })).toEqual({ country: 'US' });
      expect(ports.customerLocation!({ 'cf-ipcountry': 'US', 'cf-region-code': 'CA-ON' })).toEqual({ country: 'US' });
      expect(ports.customerLocation!({ 'cf-region-code': 'TX' })).toBeUndefined();
      expect(logs.some((line) => line.includes('provider circuit store (Redis) failed'))).toBe(true);
      expect(logs.some((line) => line.includes('could not read the measured checkouts'))).toBe(true);
    } finally {
      down.disconnect();
      await deadPool.end();
    }
  });
});
