import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sealAddressIn, walletDedupeKey, type EvmAddress } from '@gateway/domain';
import { WalletRepository } from '@gateway/db';
import { createTestDatabase, createTestRedis, testKeyEnv, type TestDatabase, type TestRedis } from '@gateway/testkit';
import { buildPaymentRedirectApp } from '../src/app';
import { loadPaymentRedirectConfig } from '../src/config';

// Not the sample table: EUR at 0.5 per USD makes moonpay's 20 USD minimum 10.00 EUR.
const RATES = { base: 'USD', rates: { EUR: '0.5', INR: '83.1' } };
const temporary = '0x3333333333333333333333333333333333333333' as EvmAddress;
const payout = '0x52908400098527886E0F7030069857D2E4169EE7';

let db: TestDatabase;
let cache: TestRedis;
let dir: string;
let addressIn: string;
const apps: FastifyInstance[] = [];

async function buildApp(rates: object): Promise<FastifyInstance> {
  const file = join(dir, `rates-${apps.length}.json`);
  writeFileSync(file, JSON.stringify(rates));
  const config = loadPaymentRedirectConfig({
    ...testKeyEnv(),
    NODE_ENV: 'test',
    DATABASE_URL: db.connectionString,
    DATABASE_SCHEMA: db.schema,
    REDIS_PREFIX: cache.prefix,
    RATE_LIMIT_MAX: '100000',
    RATE_SOURCE: 'file',
    RATE_FILE: file,
  });
  const app = await buildPaymentRedirectApp({ config, pool: db.pool, redis: cache.redis, logger: false });
  apps.push(app);
  addressIn = sealAddressIn(temporary, config.keys);
  return app;
}

const pay = (app: FastifyInstance, query: Record<string, string>) =>
  app.inject({
    method: 'GET',
    url: '/process-payment.php',
    query: { address: addressIn, provider: 'moonpay', email: 'jane@shop.io', ...query },
    headers: { accept: 'application/json' },
  });

beforeAll(async () => {
  db = await createTestDatabase('rate_minimums');
  cache = createTestRedis('rate-minimums');
  dir = mkdtempSync(join(tmpdir(), 'rate-minimums-'));
  await new WalletRepository(db.pool).createOrGetMany([
    {
      hdIndex: 0n,
      polygonAddress: temporary,
      addressIn: 'unused',
      payoutAddress: payout,
      callbackUrl: 'https://shop.io/ipn?order=rates',
      dedupeKey: walletDedupeKey(payout, 'https://shop.io/ipn?order=rates'),
      ipnToken: randomBytes(24).toString('base64url'),
    },
  ]);
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await db.drop();
  await cache.close();
});

describe("Process Payment's provider minimums follow the rate reader", () => {
  it("converts a provider's USD minimum with the reader's rates, rounded up", async () => {
    const app = await buildApp(RATES);
    expect((await app.rateReader.current()).source).toBe('file');
    const below = await pay(app, { amount: '9.99', currency: 'EUR' });
    expect(below.statusCode).toBe(400);
    expect(below.json()).toMatchObject({ code: 'amount_below_minimum', param: 'amount' });
    expect(below.json().error).toMatch(/minimum of 10\.00 EUR/); // 20 USD × 0.5
    expect((await pay(app, { amount: '10.00', currency: 'EUR' })).statusCode).toBe(200);
    // 20 USD × 83.1 = 1662.00 INR
    expect((await pay(app, { amount: '1661.99', currency: 'INR' })).json().error).toMatch(/minimum of 1662\.00 INR/);
    // A supported currency the source has no rate for is refused clearly.
    expect((await pay(app, { amount: '100', currency: 'CAD' })).json()).toMatchObject({ code: 'unsupported_currency', param: 'currency' });
  });

  it('answers 503 with Retry-After for a non-USD order while the rates are too old, and still takes USD orders', async () => {
    const app = await buildApp({ ...RATES, asOf: new Date(Date.now() - 10 * 86_400_000).toISOString() });
    const eur = await pay(app, { amount: '50', currency: 'EUR' });
    expect(eur.statusCode).toBe(503);
    expect(Number(eur.headers['retry-after'])).toBeGreaterThan(0);
    expect(eur.json()).toMatchObject({ status: 'error', code: 'service_unavailable', error: expect.stringMatching(/exchange rates are too old to use/) });
    const usd = await pay(app, { amount: '50', currency: 'USD' });
    expect(usd.statusCode).toBe(200);
    expect(usd.json()).toMatchObject({ status: 'success', provider: 'moonpay' });
  });
});
