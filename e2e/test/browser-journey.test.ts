import type { Browser } from 'playwright-core';
import { sleep, waitFor } from '@gateway/testkit';
import { DESKTOP, launchChromium, screenshot } from './support/browser';
import { erc20Abi, type Address } from 'viem';
import { formatUsdc } from '@gateway/domain';
import { startGatewayStack, type GatewayStack, closeInOrder } from './support/gateway-stack';
import { chainReader, createWallet, payWithCard } from './support/customer';
import { checkCallback, startMerchant, type Merchant } from './support/merchant';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';

interface ReceivedCallback {
  url: string;
  signatureValid: boolean;
}

let stack: GatewayStack;
let browser: Browser;
let merchant: Merchant;
const received: ReceivedCallback[] = [];

async function paymentLink(order: string, amount: string): Promise<{ link: string; temporary: Address }> {
  const wallet = await createWallet(stack, PAYOUT, `${merchant.url}/ipn?order=${order}`);
  const query = new URLSearchParams({ address: wallet.address_in, amount, provider: 'moonpay', email: 'jane@shop.io', currency: 'USD' });
  return { link: `${stack.paymentUrl}/process-payment.php?${query}`, temporary: wallet.polygon_address_in };
}

const callbacksFor = (order: string) => received.filter((entry) => new URL(entry.url).searchParams.get('order') === order);

beforeAll(async () => {
  merchant = await startMerchant((url, request, response) => {
    if (request.url?.startsWith('/ipn')) {
      // Each test asserts the amounts it paid from value_forwarded_coin itself.
      const verdict = checkCallback(url, request, { publicKey: stack.callbackPublicKey, payoutAddress: PAYOUT, amount: false });
      received.push({ url, signatureValid: verdict.ok });
      response.writeHead(200).end('*ok*');
      return;
    }
    // Another site trying to show the payment page inside its own.
    const link = new URL(url).searchParams.get('link') ?? '';
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<!doctype html><title>Some shop</title><h1>Some shop</h1><iframe id="pay" src="${link.replace(/"/g, '&quot;')}" width="600" ` +
          `height="700"></iframe>`,
      );
  });
  stack = await startGatewayStack('browser');
  browser = await launchChromium();
}, 150_000);

afterAll(() => closeInOrder(browser, stack, merchant));

it('pays with the test card and follows the receipt until the merchant has the USDC and one signed callback', async () => {
  const order = `b${Date.now()}`;
  const { link, temporary } = await paymentLink(order, '49.99');
  const page = await browser.newPage({ viewport: DESKTOP });

  await page.goto(link);
  expect(new URL(page.url()).origin).toBe(stack.sandboxUrl);
  await expect(page.locator('body').innerText()).resolves.toMatch(/49\.99/);
  for (const token of ['cc-name', 'cc-number', 'cc-exp', 'cc-csc']) {
    expect(await page.locator(`input[autocomplete="${token}"]`).count()).toBe(1);
    const id = await page.locator(`input[autocomplete="${token}"]`).getAttribute('id');
    expect(await page.locator(`label[for="${id}"]`).count()).toBe(1);
  }
  await screenshot(page, '01-sandbox-checkout');

  await payWithCard(page, '4242 4242 4242 4242');
  await page.waitForURL(`${stack.paymentUrl}/payment/**`, { timeout: 60_000 });
  await screenshot(page, '02-receipt-in-progress');

  // The receipt follows the payment in place (JavaScript), with no reload by the test.
  await page.locator('#receipt[data-step="sent_to_merchant"]').waitFor({ timeout: 90_000 });
  await expect(page.locator('h1').innerText()).resolves.toBe('Payment complete');
  await screenshot(page, '03-receipt-complete');

  const callback = await waitFor('the callback', () => callbacksFor(order)[0], 90_000);
  expect(callback.signatureValid).toBe(true);
  const reader = chainReader(stack);
  const transfers = await reader.getContractEvents({
    address: stack.token,
    abi: erc20Abi,
    eventName: 'Transfer',
    args: { to: temporary },
    fromBlock: 0n,
  });
  const arrived = transfers.reduce((sum, log) => sum + (log.args.value ?? 0n), 0n);
  expect(arrived).toBeGreaterThan(0n);
  expect(new URL(callback.url).searchParams.get('value_coin')).toBe(formatUsdc(arrived));
  await expect(page.locator('#receipt').innerText()).resolves.toContain(`${formatUsdc(arrived)} USDC`);
  // A local chain has no block explorer: the hash is shown, never linked to Polygon's.
  expect(await page.locator('#receipt a[href^="http"]').count()).toBe(0);
  // Exactly one callback, even after a while.
  await sleep(1500);
  expect(callbacksFor(order)).toHaveLength(1);
  await page.close();
}, 180_000);

it('says a declined card is declined, charges nothing and sends no callback', async () => {
  const order = `d${Date.now()}`;
  const { link, temporary } = await paymentLink(order, '30');
  const page = await browser.newPage({ viewport: DESKTOP });
  await page.goto(link);
  await payWithCard(page, '4000 0000 0000 0002');
  await expect(page.locator('body').innerText()).resolves.toMatch(/declined/i);
  expect(new URL(page.url()).origin).toBe(stack.sandboxUrl);
  await screenshot(page, '04-sandbox-declined');

  // The gateway's receipt for this payment says so too (the provider's signed webhook).
  const paymentId = await waitFor(
    'the declined payment',
    async () => {
      const { rows } = await stack.db.pool.query<{ id: string }>(
        `SELECT p.id FROM payments p JOIN wallets w ON w.id = p.wallet_id WHERE w.polygon_address = $1 AND p.provider_status = 'declined'`,
        [temporary.toLowerCase()],
      );
      return rows[0]?.id;
    },
    15_000,
  );
  await page.goto(`${stack.paymentUrl}/payment/${paymentId}`);
  await expect(page.locator('h1').innerText()).resolves.toBe('Your card was declined');
  await screenshot(page, '05-receipt-declined');

  const reader = chainReader(stack);
  expect(await reader.readContract({ address: stack.token, abi: erc20Abi, functionName: 'balanceOf', args: [temporary] })).toBe(0n);
  await sleep(3000);
  expect(callbacksFor(order)).toHaveLength(0);
  await page.close();
}, 120_000);

it("does not render the payment link inside another site's frame", async () => {
  const { link } = await paymentLink(`f${Date.now()}`, '25');
  const page = await browser.newPage({ viewport: DESKTOP });
  await page.goto(`${merchant.url}/framing-shop?link=${encodeURIComponent(link)}`);
  await page.waitForTimeout(2000);
  const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
  expect(frame).toBeDefined();
  // Chromium refuses the framed response (frame-ancestors 'none'): an error page, no card form.
  expect(await frame!.locator('input[autocomplete="cc-number"]').count()).toBe(0);
  expect(frame!.url()).not.toContain('/checkout');
  await screenshot(page, '06-framed-refused');
  await page.close();
}, 60_000);

it('shows a clear page for an altered checkout link and an unknown receipt', async () => {
  const { link } = await paymentLink(`x${Date.now()}`, '25');
  const redirect = await fetch(link, { redirect: 'manual' });
  const altered = new URL(redirect.headers.get('location') ?? '');
  altered.searchParams.set('amount', '0.01');
  const page = await browser.newPage({ viewport: DESKTOP });
  const response = await page.goto(altered.toString());
  expect(response?.status()).toBe(400);
  await screenshot(page, '07-sandbox-invalid-link');
  const missing = await page.goto(`${stack.paymentUrl}/payment/00000000-0000-4000-8000-000000000000`);
  expect(missing?.status()).toBe(404);
  await screenshot(page, '08-receipt-not-found');
  await page.close();
}, 60_000);
