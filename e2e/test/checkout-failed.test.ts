// When the provider gives no checkout, the customer sees it in a real browser (Debian's Chromium):
// the payment host's page says so in words, offers to try again or to choose another provider,
// and "Choose another" lands on the hosted checkout for the same order. payment-redirect runs
// in-process here so the test can make MoonPay's adapter fail; the page is the one production serves.
// Screenshots: e2e/artifacts/checkout-failed-*.png (git-ignored).
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import type { EvmAddress } from '@gateway/domain';
import { ProviderCheckoutError, ProviderUnreachableError } from '@gateway/providers';
import { apiAppFixture } from '@gateway/app-testkit';
import { buildPaymentRedirectApp, loadPaymentRedirectConfig } from '@gateway/payment-redirect';
import { launchChromium, screenshot } from './support/browser';
import { seedWallet } from './support/seed-wallet';

const fixture = apiAppFixture('checkout-failed', {
  app: 'payment-redirect',
  fileEnv: { SANDBOX_CHECKOUT: 'on' },
  load: loadPaymentRedirectConfig,
  build: buildPaymentRedirectApp,
});
const temporary = '0x5555555555555555555555555555555555555555' as EvmAddress;
let app: Awaited<ReturnType<typeof buildPaymentRedirectApp>>;
let origin: string;
let browser: Browser;
let link: string;

beforeAll(async () => {
  const config = fixture.config();
  app = await fixture.build(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const addressIn = await seedWallet(fixture.db.pool, config.keys, temporary, 'failed-1');
  link = `${origin}/process-payment.php?${new URLSearchParams({ address: addressIn, amount: '49.99', provider: 'moonpay', email: 'jane@shop.io', currency: 'USD' })}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

afterEach(() => jest.restoreAllMocks());

it('MoonPay not answering: a page that says so, with "Try again" and "Choose another payment provider"', async () => {
  jest
    .spyOn(app.providers.adapter('moonpay')!, 'createCheckout')
    .mockRejectedValue(new ProviderUnreachableError('buy.moonpay.com did not answer: ECONNRESET'));
  const page = await browser.newPage();
  const response = await page.goto(link);
  expect(response?.status()).toBe(503);
  expect(await page.locator('h1').innerText()).toBe('MoonPay is not answering right now');
  await expect(page.locator('#checkout-failed').innerText()).resolves.toContain('Your card has not been charged.');
  expect(await page.locator('#try-again').innerText()).toBe('Try MoonPay again');
  await screenshot(page, 'checkout-failed-unavailable');

  // Choosing another provider: the hosted checkout for the same order, MoonPay still listed.
  await page.locator('#choose-another').click();
  await page.waitForURL(/\/pay\.php\?/);
  const listed = await page
    .locator('a.provider')
    .evaluateAll((elements: HTMLElement[]) => elements.map((element) => element.getAttribute('data-provider')));
  expect(listed).toEqual(expect.arrayContaining(['moonpay', 'banxa', 'mercuryo']));
  expect(await page.locator('body').innerText()).toContain('49.99 USD');

  // MoonPay back: "Try again" goes through to its checkout (the sandbox's, not running here: the request is what counts).
  await page.goto(link);
  jest.restoreAllMocks();
  const [checkout] = await Promise.all([page.waitForRequest(/:3300\/checkout\?payment=/), page.locator('#try-again').click()]);
  expect(new URL(checkout.url()).searchParams.get('amount')).toBe('49.99');
  await page.close();
});

it('MoonPay refusing the order: no "Try again", another provider offered', async () => {
  jest
    .spyOn(app.providers.adapter('moonpay')!, 'createCheckout')
    .mockRejectedValue(new ProviderCheckoutError('422 unsupported region', 'refused'));
  const page = await browser.newPage();
  const response = await page.goto(link);
  expect(response?.status()).toBe(502);
  expect(await page.locator('h1').innerText()).toBe('MoonPay could not start your payment');
  expect(await page.locator('#try-again').count()).toBe(0);
  await screenshot(page, 'checkout-failed-refused');
  await page.close();
});
