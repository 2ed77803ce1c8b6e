// A provider whose checkout calls fail is taken off the hosted checkout (issue 32's circuit breaker),
// in a real browser (Debian's Chromium) on the page production serves, with its live signals: Stripe
// is configured against an API host where nothing listens, so each customer who picks it gets the
// failure page; after PROVIDER_CIRCUIT_MIN_CALLS such calls its circuit opens (in Redis) and the next
// customer's page lists every other provider but not Stripe.
// Screenshots: e2e/artifacts/checkout-circuit-*.png (git-ignored).
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import type { EvmAddress } from '@gateway/domain';
import { apiAppFixture } from '@gateway/app-testkit';
import { findFreePort } from '@gateway/testkit';
import { buildPaymentRedirectApp, loadPaymentRedirectConfig } from '@gateway/payment-redirect';
import { DESKTOP, launchChromium, screenshot } from './support/browser';
import { seedWallet } from './support/seed-wallet';

const temporary = '0x7777777777777777777777777777777777777777' as EvmAddress;
const FAILED_CALLS_TO_OPEN = 3;

let origin: string;
let browser: Browser;
let addressIn: string;
// Where Stripe's API is: a port nothing listens on, chosen before the app's settings are read.
const fileEnv: Record<string, string> = {
  SANDBOX_CHECKOUT: 'on',
  PROVIDER_STRIPE_SECRET_KEY: `sk_test_${'5'.repeat(24)}`,
  PROVIDER_STRIPE_WEBHOOK_SECRET: `whsec_${'6'.repeat(32)}`,
  PROVIDER_CIRCUIT_MIN_CALLS: String(FAILED_CALLS_TO_OPEN),
  // Every page quotes Stripe too: a short wait keeps its failing quote from slowing the test.
  QUOTE_TIMEOUT_MS: '500',
};
const fixture = apiAppFixture('checkout-circuit', {
  app: 'payment-redirect',
  fileEnv,
  load: loadPaymentRedirectConfig,
  build: (deps) => buildPaymentRedirectApp(deps),
});

const payLink = () =>
  `${origin}/pay.php?${new URLSearchParams({ address: addressIn, amount: '50', email: 'jane@shop.io', currency: 'USD', domain: 'Greenleaf Tea' })}`;

beforeAll(async () => {
  fileEnv.PROVIDER_STRIPE_API_URL = `http://127.0.0.1:${await findFreePort()}`;
  const config = fixture.config();
  const app = await fixture.build(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  addressIn = await seedWallet(fixture.db.pool, config.keys, temporary, 'circuit-1');
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

it('customers who pick a failing provider get the failure page; once its circuit opens, the next page does not list it', async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  const listed = async () => {
    await page.goto(payLink());
    return page.locator('a.provider').evaluateAll((links: HTMLElement[]) => links.map((link) => link.getAttribute('data-provider')));
  };

  for (let customer = 1; customer <= FAILED_CALLS_TO_OPEN; customer += 1) {
    expect(await listed()).toContain('stripe');
    const stripe = page.locator('a.provider[data-provider="stripe"]');
    if (!(await stripe.isVisible())) await page.locator('#more-providers > summary').click();
    const [answer] = await Promise.all([page.waitForNavigation(), stripe.click()]);
    // Nothing to redirect to: the customer stays with us and is told so, never sent to a dead checkout.
    expect(new URL(page.url()).origin).toBe(origin);
    expect(answer?.status()).toBeGreaterThanOrEqual(500);
    if (customer === 1) await screenshot(page, 'checkout-circuit-provider-failed');
  }

  const after = await listed();
  expect(after).not.toContain('stripe');
  expect(after.length).toBeGreaterThanOrEqual(3);
  await page.locator('#more-providers > summary').click();
  expect(await page.locator('a.provider[data-provider="stripe"]').count()).toBe(0);
  await screenshot(page, 'checkout-circuit-open');
  await page.close();
}, 90_000);
