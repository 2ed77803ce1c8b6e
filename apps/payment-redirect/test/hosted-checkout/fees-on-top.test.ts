import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { findFreePort } from '@gateway/testkit';
import { launchChromium, screenshotBoth } from '@gateway/testkit/browser';
import { STRIPE_FAKE_SECRET, startStripeFake, type StripeFake } from '../../../../packages/providers/test/support/stripe-fake';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { sandboxWebhook } from '../support/sandbox';

// Fees on top (issue 32) through the whole app on a real port, against a local Stripe (its
// documented session and quotes, destination_amount included): the wallet asked for it
// (customer_pays_fee=1), Stripe sells a fixed USDC amount, the sandbox standing in for the other
// providers does not. The page is loaded in Debian's Chromium and kept as screenshots.
const fixture = paymentRedirectFixture('fees_on_top', {
  PROVIDER_STRIPE_SECRET_KEY: STRIPE_FAKE_SECRET.test,
  PROVIDER_STRIPE_WEBHOOK_SECRET: 'whsec_5f3a1c9e7b2d4f6a8c0e1b3d5f7a9c2e',
});
const ARTIFACTS = join(__dirname, '..', '..', 'artifacts');
const EMAIL = 'jane@shop.io';
const onTop = '0x6666666666666666666666666666666666666666' as EvmAddress;
const inside = '0x7777777777777777777777777777777777777777' as EvmAddress;

let fake: StripeFake;
let app: FastifyInstance;
let browser: Browser;
let publicUrl: string;
let sealed: (temporary: EvmAddress) => string;
let config: ReturnType<typeof fixture.config>;

beforeAll(async () => {
  fake = await startStripeFake();
  const port = await findFreePort();
  publicUrl = `http://127.0.0.1:${port}`;
  config = fixture.config({ PROVIDER_STRIPE_API_URL: fake.url, PUBLIC_URL: publicUrl, STATUS_POLL_WORKER: 'off' });
  app = await fixture.build(config);
  await app.listen({ port, host: '127.0.0.1' });
  sealed = (temporary) => sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({
    temporary: onTop,
    addressIn: sealed(onTop),
    callbackUrl: 'https://shop.io/ipn?order=top',
    customerPaysFee: true,
  });
  await fixture.insertWallet({ temporary: inside, addressIn: sealed(inside), callbackUrl: 'https://shop.io/ipn?order=in' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await fake?.close();
});

afterEach(() => expect(fake.problems).toEqual([]));

const order = (temporary: EvmAddress) => ({ address: sealed(temporary), amount: '100.00', email: EMAIL, currency: 'USD' });

describe('fees on top, asked by the wallet (customer_pays_fee=1)', () => {
  it("Stripe's row is quoted for the USDC that leaves the shop 100.00 after its 1 % fee, and says the fees are on top", async () => {
    // The words are what is tested, not the page's 800 ms wait for a quote on a busy machine: a first
    // load asks Stripe, and the page is opened once its answer is cached.
    await app.inject({ url: '/pay.php', query: order(onTop) });
    await app.quoteService.settled();
    const page = await browser.newPage();
    await page.goto(`${publicUrl}/pay.php?${new URLSearchParams(order(onTop))}`);
    // 100 USDC less 1 %: 101.010101 leaves the merchant 100.000000 (one base unit less, 99.999999).
    const quoted = fake.requests.find((request) => request.path.startsWith('/v1/crypto/onramp/quotes'));
    expect(new URL(quoted!.path, 'http://x').searchParams.get('destination_amount')).toBe('101.010101');
    const stripe = page.locator('li', { hasText: 'Stripe' }).first();
    if (!(await stripe.isVisible())) await page.locator('summary', { hasText: 'More providers' }).click();
    // The fake's price (3 %): 101.02 for the USDC (cents rounded up), 3 % (3.03) on top.
    const text = ((await stripe.textContent()) ?? '').replace(/\s+/g, ' ');
    expect(text).toContain('104.05 USD');
    expect(text).toContain('Fees on top: the shop receives 100.00 USDC');
    // The sandbox, standing in for the others, sells a fiat amount: its rows keep the fees inside, and say so.
    const others = await page.locator('.fact-receives', { hasNotText: 'Fees on top' }).allTextContents();
    expect(others.length).toBeGreaterThan(0);
    expect(others.filter((words) => !words.startsWith('Fees included: the shop receives'))).toEqual([]);
    await stripe.scrollIntoViewIfNeeded();
    await screenshotBoth(page, ARTIFACTS, 'hosted-checkout-fees-on-top');
    await page.close();
  });

  it("Process Payment opens Stripe's session for that USDC (destination_amount) and the order expects it", async () => {
    const response = await app.inject({
      url: '/process-payment.php',
      query: { ...order(onTop), provider: 'stripe' },
      headers: { accept: 'application/json' },
    });
    expect(response.statusCode).toBe(200);
    const session = fake.requests.filter((request) => request.path === '/v1/crypto/onramp_sessions').at(-1)!;
    expect(session.form.get('destination_amount')).toBe('101.010101');
    expect(session.form.has('source_amount')).toBe(false);
    const { rows } = await fixture.db.pool.query(
      'SELECT checkout_usdc::text, expected_usdc::text, expected_basis FROM payments WHERE id = $1',
      [response.json().payment_id],
    );
    expect(rows[0]).toEqual({ checkout_usdc: '101010101', expected_usdc: '101010101', expected_basis: 'quote' });
  });

  it('a wallet that asked for nothing keeps the fees inside at Stripe too (CUSTOMER_PAYS_FEES is off)', async () => {
    const response = await app.inject({
      url: '/process-payment.php',
      query: { ...order(inside), provider: 'stripe' },
      headers: { accept: 'application/json' },
    });
    expect(response.statusCode).toBe(200);
    const session = fake.requests.filter((request) => request.path === '/v1/crypto/onramp_sessions').at(-1)!;
    expect(session.form.get('source_amount')).toBe('100.00');
    expect(session.form.has('destination_amount')).toBe(false);
  });
});

describe('the second chance after a decline: the next tries say who pays the fees as their checkouts will', () => {
  it("a wallet with customer_pays_fee=1: Stripe's row on the receipt says the fees are on top, the sandbox's that they are inside", async () => {
    const started = await app.inject({
      url: '/process-payment.php',
      query: { ...order(onTop), provider: 'moonpay' },
      headers: { accept: 'application/json' },
    });
    expect(started.statusCode).toBe(200);
    const { payment_id: paymentId, checkout_link: link } = started.json();
    const declined = await sandboxWebhook(app, config, {
      payment_id: paymentId,
      status: 'declined',
      order_id: 'sbx_top',
      reason: 'Card declined by issuer',
    });
    expect(declined.statusCode).toBe(200);
    const receipt = await app.inject({
      url: `/payment/${paymentId}`,
      headers: { cookie: `payment_key=${new URL(link).searchParams.get('key')}` },
    });
    expect(receipt.statusCode).toBe(200);
    const words = receipt.body.replace(/\s+/g, ' ');
    expect(words).toContain('id="second-chance"');
    expect(words).toContain('Fees on top: the shop receives 100.00 USDC');
    expect(words).toContain('Fees included: the shop receives');
  });
});
