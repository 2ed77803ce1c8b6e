import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// Not the sample table: EUR at 0.5 per USD makes moonpay's 20 USD minimum 10.00 EUR.
const RATES = { base: 'USD', rates: { EUR: '0.5', INR: '83.1' } };
const temporary = '0x3333333333333333333333333333333333333333' as EvmAddress;

const fixture = paymentRedirectFixture('rate_minimums');
let dir: string;
let addressIn: string;
let built = 0;

async function buildApp(rates: object): Promise<FastifyInstance> {
  const file = join(dir, `rates-${built++}.json`);
  writeFileSync(file, JSON.stringify(rates));
  const config = fixture.config({ RATE_SOURCE: 'file', RATE_FILE: file });
  const app = await fixture.build(config);
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
  dir = mkdtempSync(join(tmpdir(), 'rate-minimums-'));
  // Each app has keys of its own, so no one address_in fits them all; the wallet is found by its address.
  await fixture.insertWallet({ temporary, addressIn: 'unused', callbackUrl: 'https://shop.io/ipn?order=rates' });
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
    expect(eur.json()).toMatchObject({
      status: 'error',
      code: 'service_unavailable',
      error: expect.stringMatching(/exchange rates are too old to use/),
    });
    const usd = await pay(app, { amount: '50', currency: 'USD' });
    expect(usd.statusCode).toBe(200);
    expect(usd.json()).toMatchObject({ status: 'success', provider: 'moonpay' });
  });
});
