// The hosted checkout's rows (issue 32) in a real browser (Debian's Chromium): quoted prices, what
// the shop receives, methods and time, the "More providers" disclosure opened and closed without
// JavaScript, and a provider marked as not serving the customer's country. payment-redirect runs
// in-process here with a quote service and a customer country given as the app's ports, so each
// row's figures are known (checkout-circuit.test.ts runs the live ones); everything else is the page
// production serves.
// Screenshots: e2e/artifacts/checkout-rows-*.png (git-ignored).
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { EvmAddress } from '@gateway/domain';
import { apiAppFixture } from '@gateway/app-testkit';
import { buildPaymentRedirectApp, loadPaymentRedirectConfig, type CheckoutPorts, type RowQuote } from '@gateway/payment-redirect';
import { DESKTOP, launchChromium, PHONE, screenshot } from './support/browser';
import { seedWallet } from './support/seed-wallet';

const temporary = '0x6666666666666666666666666666666666666666' as EvmAddress;

/** A quote service as the page sees it: MoonPay, Banxa and Mercuryo quote a fee on top; the others give no quote (an estimate). */
const QUOTED: Record<string, { feeBps: bigint; usdc: bigint }> = {
  moonpay: { feeBps: 249n, usdc: 49_120_000n },
  banxa: { feeBps: 199n, usdc: 49_310_000n },
  mercuryo: { feeBps: 310n, usdc: 48_870_000n },
};
const asked: string[] = [];
const ports: CheckoutPorts = {
  quotes: {
    async quote(order, { waitMs }) {
      asked.push(`${order.provider} ${order.amount.text} ${order.currency} ${waitMs}`);
      const quoted = QUOTED[order.provider];
      if (!quoted) throw new Error(`${order.provider} has no quote API here`);
      const total = order.amount.minorUnits + (order.amount.minorUnits * quoted.feeBps + 9_999n) / 10_000n;
      const quote: RowQuote = {
        provider: order.provider,
        basis: 'quote',
        usdc: quoted.usdc,
        total: `${total / 100n}.${String(total % 100n).padStart(2, '0')}`,
        currency: order.currency,
        quotedAt: new Date(),
      };
      return quote;
    },
  },
  // The proxy's header, as CUSTOMER_COUNTRY_HEADER names it in production.
  customerLocation: (headers) => (typeof headers['x-test-country'] === 'string' ? { country: headers['x-test-country'] } : undefined),
};

const fixture = apiAppFixture('checkout-rows', {
  app: 'payment-redirect',
  fileEnv: { SANDBOX_CHECKOUT: 'on' },
  load: loadPaymentRedirectConfig,
  build: (deps) => buildPaymentRedirectApp({ ...deps, checkoutPorts: ports }),
});
let origin: string;
let browser: Browser;
let addressIn: string;

const payLink = (amount: string, currency: string) =>
  `${origin}/pay.php?${new URLSearchParams({ address: addressIn, amount, email: 'jane@shop.io', currency, domain: 'Greenleaf Tea' })}`;

interface ShownRow {
  id: string;
  text: string;
  visible: boolean;
}

function shownRows(page: Page): Promise<ShownRow[]> {
  return page.locator('a.provider').evaluateAll((links: HTMLElement[]) =>
    links.map((link) => ({
      id: link.getAttribute('data-provider') ?? '',
      text: link.innerText.replace(/\s+/g, ' ').trim(),
      visible: link.checkVisibility(),
    })),
  );
}

beforeAll(async () => {
  const config = fixture.config();
  const app = await fixture.build(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  addressIn = await seedWallet(fixture.db.pool, config.keys, temporary, 'rows-1');
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

it('each row says what the customer pays, what the shop receives, the methods and the time; quoted rows with their fees', async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  const response = await page.goto(payLink('50', 'USD'));
  expect(response?.status()).toBe(200);
  expect(response?.headers()['x-frame-options']).toBe('DENY');
  expect(asked).toContain('moonpay 50.00 USD 800');

  const rows = await shownRows(page);
  const row = (id: string) => rows.find((candidate) => candidate.id === id)!;
  expect(rows.filter((candidate) => candidate.visible).map((candidate) => candidate.id)).toEqual([
    'wert',
    'stripe',
    'rampnetwork',
    'transak',
    'moonpay',
  ]);
  // MoonPay's quote: 2.49 % on top, fees included; what the shop receives from its quote.
  expect(row('moonpay').text).toBe(
    'Pay with MoonPay 51.25 USD Fees included The shop receives 49.12 USDC Card, Apple Pay, Google Pay, PayPal USDC in about 20 minutes (per MoonPay) ›',
  );
  // No quote (the service threw): the estimate from the documented fees, said as one.
  expect(row('transak').text).toMatch(
    /^Pay with Transak 50\.00 USD Fees included: the shop receives about \d+\.\d\d USDC \(estimated from its published fees\) Card USDC in about 30 minutes \(typical\) ›$/,
  );
  await screenshot(page, 'checkout-rows-quoted');

  // The phone: nothing wider than the screen, each row a comfortable tap target, its facts wrapped under the name.
  await page.setViewportSize(PHONE);
  expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(PHONE.width);
  const boxes = await page
    .locator('#recommended a.provider')
    .evaluateAll((links: HTMLElement[]) =>
      links.map((link) => ({ height: link.getBoundingClientRect().height, right: link.getBoundingClientRect().right })),
    );
  for (const box of boxes) {
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.right).toBeLessThanOrEqual(PHONE.width);
  }
  await page.close();
}, 30_000);

it('"More providers (N)" opens and closes without JavaScript, by mouse and by keyboard', async () => {
  const context = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(payLink('50', 'USD'));
  const summary = page.locator('#more-providers > summary');
  const hidden = (await shownRows(page)).filter((row) => !row.visible);
  expect(await summary.innerText()).toBe(`More providers (${hidden.length})`);
  expect(hidden.map((row) => row.id)).toEqual(expect.arrayContaining(['banxa', 'mercuryo', 'coinbase']));
  await screenshot(page, 'checkout-rows-disclosure-closed');

  await summary.click();
  expect((await shownRows(page)).every((row) => row.visible)).toBe(true);
  // Quoted providers behind the disclosure say their quotes too.
  expect((await shownRows(page)).find((row) => row.id === 'banxa')?.text).toMatch(
    /^Pay with Banxa 51\.00 USD Fees included The shop receives 49\.31 USDC/,
  );
  await screenshot(page, 'checkout-rows-disclosure-open');

  // Keyboard: the summary is the Tab stop after the recommended rows; Enter closes it, and again opens it.
  await page.locator('#recommended a.provider').last().focus();
  await page.keyboard.press('Tab');
  expect(await page.evaluate('document.activeElement?.tagName')).toBe('SUMMARY');
  await page.keyboard.press('Enter');
  expect(await page.locator('#more-providers').getAttribute('open')).toBeNull();
  await page.keyboard.press('Enter');
  expect(await page.locator('#more-providers').getAttribute('open')).toBe('');
  await context.close();
}, 30_000);

it("a provider that may not serve the customer's country is marked and listed last, never hidden", async () => {
  const context = await browser.newContext({ viewport: DESKTOP, extraHTTPHeaders: { 'x-test-country': 'CA' } });
  const page = await context.newPage();
  await page.goto(payLink('49.99', 'EUR'));
  await page.locator('#more-providers > summary').click();
  const rows = await shownRows(page);
  const marked = rows.filter((row) => row.text.includes('May not serve customers in Canada'));
  expect(marked.map((row) => row.id)).toEqual(expect.arrayContaining(['banxa', 'stripe']));
  expect(rows.slice(-marked.length)).toEqual(marked);
  // Still a link to Process Payment: the customer may know better.
  expect(await page.locator('a.provider[data-provider="banxa"]').getAttribute('href')).toMatch(/^\/process-payment\.php\?/);
  await page.locator('a.provider[data-provider="banxa"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'checkout-rows-country');
  await context.close();
}, 30_000);
