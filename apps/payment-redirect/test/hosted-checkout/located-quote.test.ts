import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { sealAddressIn, secondChanceFormToken, type EvmAddress } from '@gateway/domain';
import { findFreePort } from '@gateway/testkit';
import { launchChromium, screenshotBoth } from '@gateway/testkit/browser';
import { startCoinbaseFake, type CoinbaseFake } from '../../../../packages/providers/test/support/coinbase-fake';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { sandboxWebhook } from '../support/sandbox';

// A quote priced per customer location (issue 32) through the whole app on a real port, against a
// local CDP API (Coinbase's documented Buy Quote, its JWT verified): the customer's country and
// state come from the headers a trusted proxy sets (CF-IPCountry and cf-region-code, as
// Cloudflare's); the page shows Coinbase's quote for that place, Process Payment records the same
// figure, and a customer the gateway cannot place gets the estimate. Kept as screenshots.
const cdp = generateKeyPairSync('ed25519');
const jwk = cdp.privateKey.export({ format: 'jwk' });
const KEY_ID = '2636c881-b44e-4263-b05d-fb10a5ad1836';
const fixture = paymentRedirectFixture('located_quote', {
  PROVIDER_COINBASE_KEY_ID: KEY_ID,
  PROVIDER_COINBASE_KEY_SECRET: Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64'),
  CUSTOMER_COUNTRY_HEADER: 'CF-IPCountry',
  CUSTOMER_SUBDIVISION_HEADER: 'CF-Region-Code',
});
const ARTIFACTS = join(__dirname, '..', '..', 'artifacts');
const temporary = '0x8888888888888888888888888888888888888888' as EvmAddress;
const TEXAS = { 'cf-ipcountry': 'US', 'cf-region-code': 'TX' };

let fake: CoinbaseFake;
let app: FastifyInstance;
let browser: Browser;
let publicUrl: string;
let order: Record<string, string>;
let config: ReturnType<typeof fixture.config>;

beforeAll(async () => {
  fake = await startCoinbaseFake({ keyId: KEY_ID, publicKey: cdp.publicKey, algorithm: 'EdDSA' });
  const port = await findFreePort();
  publicUrl = `http://127.0.0.1:${port}`;
  config = fixture.config({ PROVIDER_COINBASE_API_URL: fake.url, PUBLIC_URL: publicUrl, STATUS_POLL_WORKER: 'off' });
  app = await fixture.build(config);
  await app.listen({ port, host: '127.0.0.1' });
  const addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=located' });
  order = { address: addressIn, amount: '80.00', email: 'jane@shop.io', currency: 'USD' };
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await fake?.close();
});

beforeEach(() => fake.reset());
afterEach(() => expect(fake.problems).toEqual([]));

const quoteCalls = () => fake.requests.filter((request) => request.path === '/onramp/v1/buy/quote');

/**
 * Coinbase's row on the page, as words. What the row says is tested, not the page's 800 ms wait for a
 * quote on a busy machine: a first load asks Coinbase, and the row is read once its answer is in.
 */
async function coinbaseRow(headers: Record<string, string>): Promise<string> {
  await app.inject({ url: '/pay.php', query: order, headers });
  await app.quoteService.settled();
  const response = await app.inject({ url: '/pay.php', query: order, headers });
  expect(response.statusCode).toBe(200);
  const row = /<a class="provider" href="[^"]+" data-provider="coinbase">([\s\S]*?)<\/a>/.exec(response.body)?.[1] ?? '';
  return row
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

describe("Coinbase's quote, priced where the customer is", () => {
  it("shows a customer in Texas Coinbase's quote for Texas, and Process Payment records that figure", async () => {
    // The fake: 2.5 % and 0.01 off 80.00, so 77.99 USDC, the customer paying the 80.00.
    const words = await coinbaseRow(TEXAS);
    expect(words).toContain('80.00 USD');
    expect(words).toContain('The shop receives 77.99 USDC');
    expect(quoteCalls()).toHaveLength(1);
    expect(JSON.parse(quoteCalls()[0]!.body)).toMatchObject({ country: 'US', subdivision: 'TX', paymentAmount: '80.00' });

    const started = await app.inject({
      url: '/process-payment.php',
      query: { ...order, provider: 'coinbase' },
      headers: { accept: 'application/json', ...TEXAS },
    });
    expect(started.statusCode).toBe(200);
    const { rows } = await fixture.db.pool.query('SELECT expected_usdc::text, expected_basis FROM payments WHERE id = $1', [
      started.json().payment_id,
    ]);
    expect(rows[0]).toEqual({ expected_usdc: '77990000', expected_basis: 'quote' });
    // The band's quote, cached: Process Payment asked Coinbase for no other.
    expect(quoteCalls()).toHaveLength(1);
  });

  it('gives a customer the gateway cannot place (no header, or a US customer without a state) the estimate, asking nothing', async () => {
    for (const headers of [{}, { 'cf-ipcountry': 'US' }] as Record<string, string>[]) {
      expect(await coinbaseRow(headers)).toMatch(
        /Fees included: the shop receives about \d+\.\d\d USDC \(estimated from its published fees\)/,
      );
    }
    const started = await app.inject({
      url: '/process-payment.php',
      query: { ...order, provider: 'coinbase' },
      headers: { accept: 'application/json', 'cf-ipcountry': 'US' },
    });
    const { rows } = await fixture.db.pool.query('SELECT expected_basis FROM payments WHERE id = $1', [started.json().payment_id]);
    expect(rows[0].expected_basis).toBe('estimate');
    expect(quoteCalls()).toHaveLength(0);
  });

  it('asks again for another place: a customer in Canada gets a quote of their own', async () => {
    expect(await coinbaseRow({ 'cf-ipcountry': 'CA' })).toContain('The shop receives 77.99 USDC');
    expect(quoteCalls().map((request) => JSON.parse(request.body).country)).toEqual(['CA']);
  });

  it("the second chance after a decline shows Coinbase's quote for the customer's place and records it when taken", async () => {
    // MoonPay, without credentials here, is the sandbox's: it declines.
    const first = await app.inject({
      url: '/process-payment.php',
      query: { ...order, provider: 'moonpay' },
      headers: { accept: 'application/json', ...TEXAS },
    });
    const { payment_id: paymentId, checkout_link: link } = first.json();
    const key = new URL(link).searchParams.get('key')!;
    const declined = await sandboxWebhook(app, config, {
      payment_id: paymentId,
      status: 'declined',
      order_id: 'sbx_located',
      reason: 'Card declined by issuer',
    });
    expect(declined.statusCode).toBe(200);
    const receipt = await app.inject({ url: `/payment/${paymentId}`, headers: { cookie: `payment_key=${key}`, ...TEXAS } });
    expect(receipt.body.replace(/\s+/g, ' ')).toContain('The shop receives 77.99 USDC');
    const taken = await app.inject({
      method: 'POST',
      url: `/payment/${paymentId}/retry`,
      payload: new URLSearchParams({ provider: 'coinbase', form_token: secondChanceFormToken(key, paymentId) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: publicUrl, cookie: `payment_key=${key}`, ...TEXAS },
    });
    expect(taken.statusCode).toBe(303);
    const retryId = /\/payment\/([0-9a-f-]{36})\/continue/.exec(taken.headers.location as string)![1];
    const { rows } = await fixture.db.pool.query('SELECT provider, expected_usdc::text, expected_basis FROM payments WHERE id = $1', [
      retryId,
    ]);
    expect(rows[0]).toEqual({ provider: 'coinbase', expected_usdc: '77990000', expected_basis: 'quote' });
    // The Texas band's quote is the one shown and recorded.
    expect(quoteCalls().length).toBeLessThanOrEqual(1);
  });

  it('renders the quoted row in Chromium, desktop and phone', async () => {
    const context = await browser.newContext({ extraHTTPHeaders: TEXAS });
    const page = await context.newPage();
    await page.goto(`${publicUrl}/pay.php?${new URLSearchParams(order)}`);
    const row = page.locator('li', { hasText: 'Coinbase' }).first();
    if (!(await row.isVisible())) await page.locator('summary', { hasText: 'More providers' }).click();
    expect(((await row.textContent()) ?? '').replace(/\s+/g, ' ')).toContain('The shop receives 77.99 USDC');
    await row.scrollIntoViewIfNeeded();
    await screenshotBoth(page, ARTIFACTS, 'hosted-checkout-located-quote');
    await context.close();
  });
});
