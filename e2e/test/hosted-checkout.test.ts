// The hosted multi-provider checkout (pay.php) in a real browser (Debian's Chromium driven by
// playwright-core), every app its own process: the list for USD, EUR, CAD and INR, a 390-px phone,
// a keyboard-only choice that lands on the sandbox checkout, branding, error pages and frames.
// Screenshots (desktop 1280 and phone 390) go to e2e/artifacts/hosted-*.png (git-ignored).
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, launchChromium, PHONE, screenshot } from './support/browser';
import { createWallet } from './support/customer';
import { startMerchant, type Merchant } from './support/merchant';
import { closeInOrder, startGatewayStack, type GatewayStack } from './support/gateway-stack';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" ' +
  'fill="#0b6e4f"/><path d="M9 22c0-9 6-13 15-13-1 9-5 14-12 14l-3 2" fill="#c8ecd9"/></svg>';

let stack: GatewayStack;
let browser: Browser;
let framingSite: Merchant;
let addressIn: string;

function payLink(amount: string, currency: string, extra: Record<string, string> = {}): string {
  return `${stack.paymentUrl}/pay.php?${new URLSearchParams({ address: addressIn, amount, email: 'jane@shop.io', currency, ...extra })}`;
}

interface Row {
  id: string;
  text: string;
  href?: string;
}

async function rows(page: Page, selector: string): Promise<Row[]> {
  return page.locator(selector).evaluateAll((elements: HTMLElement[]) =>
    elements.map((element) => ({
      id: element.getAttribute('data-provider') ?? '',
      text: element.innerText.replace(/\s+/g, ' ').trim(),
      href: element.getAttribute('href') ?? undefined,
    })),
  );
}

beforeAll(async () => {
  // Another site that puts the checkout in an <iframe>.
  framingSite = await startMerchant((url, _request, response) => {
    const link = new URL(url).searchParams.get('link') ?? '';
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!doctype html><title>Some shop</title><h1>Some shop</h1><iframe id="pay" ` +
          `src="${link.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" width="600" height="600"></iframe>`,
      );
  });
  const [started, launched] = await Promise.all([startGatewayStack('hosted'), launchChromium()]);
  stack = started;
  browser = launched;
  addressIn = (await createWallet(stack, PAYOUT, `${framingSite.url}/ipn?order=h${Date.now()}`)).address_in;
}, 90_000);

afterAll(() => closeInOrder(browser, stack, framingSite));

it('lists the providers for USD, EUR, CAD and INR orders, readable on a 390-px phone', async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  const seen: Record<string, { available: Row[]; unavailable: Row[] }> = {};
  for (const [currency, amount] of [
    ['USD', '49.99'],
    ['EUR', '49.99'],
    ['CAD', '150'],
    ['INR', '2500'],
  ] as const) {
    const response = await page.goto(payLink(amount, currency));
    expect(response?.status()).toBe(200);
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    await expect(page.locator('#order-amount').innerText()).resolves.toMatch(
      new RegExp(`${amount.replace('.', '\\.')}(\\.00)?\\s*${currency}`),
    );
    // The rows after the recommended ones wait behind "More providers (N)": opened, every row is read and measured.
    await page.locator('#more-providers > summary').click();
    seen[currency] = { available: await rows(page, 'a.provider'), unavailable: await rows(page, 'ul.unavailable li') };
    await screenshot(page, `hosted-${currency.toLowerCase()}`);

    // The phone: nothing wider than the screen, every choice a comfortable tap target.
    await page.setViewportSize(PHONE);
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(PHONE.width);
    const boxes = await page.locator('a.provider').evaluateAll((links: HTMLElement[]) =>
      links.map((link) => {
        const rect = link.getBoundingClientRect();
        return { height: rect.height, right: rect.right };
      }),
    );
    for (const box of boxes) {
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.right).toBeLessThanOrEqual(PHONE.width);
    }
    await page.setViewportSize(DESKTOP);
  }
  const ids = (list: Row[]) => list.map((row) => row.id);
  const row = (currency: string, id: string) => seen[currency]!.available.find((candidate) => candidate.id === id);

  expect(ids(seen.USD!.available)).toContain('wert');
  expect(ids(seen.USD!.unavailable)).toEqual(['utorg', 'simplex', 'transfi']);
  expect(seen.USD!.unavailable.map((r) => r.text)).toEqual([
    'UTORG Minimum 50.00 USD',
    'Simplex Minimum 50.00 USD',
    'TransFi Minimum 70.00 USD',
  ]);
  // USD-only providers charge a non-USD order converted to USD, shown beside the order amount.
  expect(row('EUR', 'wert')?.text).toMatch(/^Pay with Wert \d+\.\d\d USD \(49\.99 EUR\)/);
  expect(row('EUR', 'moonpay')?.text).toMatch(/^Pay with MoonPay 49\.99 EUR/);
  for (const currency of ['USD', 'EUR', 'INR']) {
    expect([...ids(seen[currency]!.available), ...ids(seen[currency]!.unavailable)]).not.toContain('interac');
  }
  for (const currency of ['USD', 'EUR', 'CAD'])
    expect([...ids(seen[currency]!.available), ...ids(seen[currency]!.unavailable)]).not.toContain('upi');
  expect(row('CAD', 'interac')?.text).toMatch(/^Pay with Interac e-Transfer \(via MoonPay\) 150\.00 CAD/);
  expect(row('INR', 'upi')?.text).toMatch(/^Pay with UPI \(via Onramp\.money\) 2500\.00 INR/);
  expect(row('INR', 'wert')?.text).toMatch(/^Pay with Wert \d+\.\d\d USD \(2500\.00 INR\)/);
  await page.close();
}, 40_000);

it("keyboard only: Tab to a provider, Enter, and land on that provider's sandbox checkout with its amount", async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  await page.goto(payLink('49.99', 'EUR'));
  // Behind the disclosure, still closed: its amount read from the markup.
  const rampAmount = await page.locator('a.provider[data-provider="rampnetwork"] .provider-amount').textContent();
  const usd = /(\d+\.\d\d) USD/.exec(rampAmount ?? '')?.[1];
  expect(usd).toBeDefined();
  const recommended = (await rows(page, '#recommended a.provider')).map((row) => row.id);
  const more = (await rows(page, '#more-providers a.provider')).map((row) => row.id);
  const target = more.indexOf('rampnetwork');
  expect(recommended.length).toBe(5);
  expect(target).toBeGreaterThan(0);
  const focused = async () =>
    String(await page.evaluate("document.activeElement?.getAttribute('data-provider') ?? document.activeElement?.tagName ?? ''"));
  // Each Tab moves to the next provider, in the order shown: the first Tab stop is the first provider.
  for (const id of recommended) {
    await page.keyboard.press('Tab');
    expect(await focused()).toBe(id);
  }
  // Then "More providers (N)": Enter opens it, and the next Tabs go through the rest.
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('SUMMARY');
  await page.keyboard.press('Enter');
  for (let presses = 0; presses <= target; presses += 1) {
    await page.keyboard.press('Tab');
    expect(await focused()).toBe(more[presses]);
  }
  // The focus is visible (an outline drawn around the link).
  const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle');
  expect(outline).toBe('solid');
  await screenshot(page, 'hosted-keyboard-focus');

  await page.keyboard.press('Enter');
  await page.waitForURL(`${stack.sandboxUrl}/checkout**`, { timeout: 15_000 });
  const landed = new URL(page.url());
  expect(landed.searchParams.get('provider')).toBe('rampnetwork');
  expect(landed.searchParams.get('amount')).toBe(usd);
  expect(landed.searchParams.get('currency')).toBe('USD');
  await expect(page.locator('.amount').innerText()).resolves.toMatch(new RegExp(`${usd!.replace('.', '\\.')}\\s*USD`));
  await expect(page.locator('body').innerText()).resolves.toContain('Ramp Network');
  await screenshot(page, 'hosted-keyboard-landed-sandbox');
  await page.close();
}, 30_000);

it("applies the merchant's branding: name, https logo (allowed by the page CSP), colours, dark theme", async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  // The logo's host does not exist here: the browser's request for it is answered by the test.
  let logoRequested = 0;
  await page.route('https://cdn.greenleaf-shop.test/**', (route) => {
    logoRequested += 1;
    return route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG });
  });
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
  });
  await page.goto(
    payLink('49.99', 'EUR', {
      domain: 'Greenleaf Tea',
      logo: 'https://cdn.greenleaf-shop.test/logo.svg',
      background: '#eef5f0',
      button: '#0b6e4f',
    }),
  );
  await expect(page.locator('img.brand-logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).resolves.toBe(
    true,
  );
  expect(logoRequested).toBe(1);
  expect(blocked).toEqual([]);
  await expect(page.locator('header.site .brand').innerText()).resolves.toContain('Greenleaf Tea');
  const background = (element: HTMLElement) => getComputedStyle(element).backgroundColor;
  expect(await page.locator('.provider-go').first().evaluate(background)).toBe('rgb(11, 110, 79)');
  expect(await page.locator('body').evaluate(background)).toBe('rgb(238, 245, 240)');
  await screenshot(page, 'hosted-branded');

  await page.goto(
    payLink('150', 'CAD', { domain: 'Greenleaf Tea', theme: 'dark', button: 'red', logo: 'http://cdn.greenleaf-shop.test/logo.svg' }),
  );
  expect(await page.locator('img').count()).toBe(0);
  expect(await page.locator('body').getAttribute('class')).toBe('gateway checkout theme-dark');
  expect(await page.locator('body').getAttribute('style')).toBeNull();
  await screenshot(page, 'hosted-branded-dark');
  await page.close();
}, 30_000);

it('shows a clear HTML page for a bad link: 400 naming the parameter, or the unknown wallet', async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  const bad = await page.goto(
    `${stack.paymentUrl}/pay.php?${new URLSearchParams({ address: PAYOUT, amount: '49,99', email: 'jane@shop.io', currency: 'EUR' })}`,
  );
  expect(bad?.status()).toBe(400);
  const text = await page.locator('main').innerText();
  expect(text).toContain('This payment link is not valid');
  expect(text).toMatch(/address\s+address must be the encrypted address_in/);
  expect(text).toMatch(/amount\s+amount must be a plain positive decimal/);
  await screenshot(page, 'hosted-error-400');

  // An address_in that opens here but belongs to no wallet: a real token whose wallet is removed.
  const other = await createWallet(stack, PAYOUT, `${framingSite.url}/ipn?order=gone`);
  await stack.db.pool.query('DELETE FROM wallets WHERE address_in = $1', [other.address_in]);
  const unknown = await page.goto(
    `${stack.paymentUrl}/pay.php?${new URLSearchParams({ address: other.address_in, amount: '10', email: 'jane@shop.io', currency: 'USD' })}`,
  );
  expect(unknown?.status()).toBe(400);
  await expect(page.locator('h1').innerText()).resolves.toBe('This payment link points to an unknown wallet');
  await screenshot(page, 'hosted-error-unknown-wallet');
  await page.close();
}, 30_000);

it("does not render inside another site's frame, and hides itself if a browser renders it framed anyway", async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  const link = payLink('49.99', 'USD');
  await page.goto(`${framingSite.url}/shop?link=${encodeURIComponent(link)}`);
  const frame = page.frameLocator('#pay');
  await page.waitForTimeout(1000);
  expect(await frame.locator('a.provider').count()).toBe(0);
  expect(
    page
      .frames()
      .find((candidate) => candidate !== page.mainFrame())
      ?.url(),
  ).not.toContain('/pay.php');
  await screenshot(page, 'hosted-framed-refused');

  // A browser that ignores frame-ancestors and X-Frame-Options (simulated by dropping them):
  // the layout's frame guard hides the checkout and offers to open it in its own window.
  await page.route(`${stack.paymentUrl}/pay.php**`, async (route) => {
    const response = await route.fetch();
    const headers = { ...response.headers() };
    delete headers['content-security-policy'];
    delete headers['x-frame-options'];
    await route.fulfill({ response, headers });
  });
  await page.goto(`${framingSite.url}/shop?link=${encodeURIComponent(link)}`);
  const framed = page.frame({ url: /\/pay\.php/ });
  expect(framed).not.toBeNull();
  await framed!.locator('#framed-warning').waitFor({ state: 'visible' });
  expect(await framed!.locator('#main').isHidden()).toBe(true);
  await expect(framed!.locator('#framed-warning').innerText()).resolves.toContain('must be opened in its own browser window');
  expect(await framed!.locator('#framed-warning a').getAttribute('href')).toBe(link);
  await screenshot(page, 'hosted-framed-guard');
  await page.close();
}, 30_000);
