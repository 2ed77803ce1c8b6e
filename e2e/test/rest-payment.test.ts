import type { Browser } from 'playwright-core';
import { waitFor } from '@gateway/testkit';
import { DESKTOP, launchChromium, screenshot } from './support/browser';
import { startGatewayStack, type GatewayStack, closeInOrder } from './support/gateway-stack';
import { createWallet, payWithCard } from './support/customer';
import { startRecordingMerchant, type RecordingMerchant } from './support/merchant';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';
/** The sandbox's test card that is approved but delivers 40 % of the USDC (apps/sandbox-provider's card-check.ts). */
const SHORT_CARD = '4000 0000 0000 0077';

let stack: GatewayStack;
let browser: Browser;
let merchant: RecordingMerchant;

beforeAll(async () => {
  merchant = await startRecordingMerchant();
  stack = await startGatewayStack('rest-payment');
  browser = await launchChromium();
}, 150_000);

afterAll(() => closeInOrder(browser, stack, merchant));

it('a 50 USD order paid short: the receipt says what is missing, the customer pays the rest through Banxa, the order ends paid', async () => {
  const order = `rest${Date.now()}`;
  const wallet = await createWallet(stack, PAYOUT, `${merchant.url}/ipn?order=${order}`);
  const query = new URLSearchParams({
    address: wallet.address_in,
    amount: '50',
    provider: 'moonpay',
    email: 'jane@shop.io',
    currency: 'USD',
  });
  const page = await browser.newPage({ viewport: DESKTOP });

  // The sandbox (standing in for MoonPay at its 1.5 % fee) approves the card but sends 40 % of the 49.25 USDC expected.
  await page.goto(`${stack.paymentUrl}/process-payment.php?${query}`);
  await payWithCard(page, SHORT_CARD);
  await page.waitForURL(`${stack.paymentUrl}/payment/**`, { timeout: 60_000 });
  const firstId = new URL(page.url()).pathname.split('/')[2];
  await page.locator('#receipt[data-step="sent_to_merchant"]').waitFor({ timeout: 90_000 });

  // Not "Payment complete": what arrived and what is missing, in the order's currency, and the rest offered.
  expect(await page.locator('h1').innerText()).toBe('Part of the payment is missing');
  const notice = await page.locator('#order-state[data-order-state="underpaid"]').innerText();
  expect(notice).toContain('20.00 of 50.00 USD arrived; 30.00 USD is missing.');
  expect(notice).toContain('19.7 USDC arrived of the 49.25 USDC this order should bring');
  expect(notice).toContain('The shop has been told that the order is short.');
  expect(await page.locator('#receipt').innerText()).not.toContain('the shop has been paid');
  expect(await page.locator('#rest h2').innerText()).toBe('Pay the missing 30.00 USD');
  // 29.55 USDC missing, grossed up by the sandbox's 1.5 %: 30.00 USD at every provider whose minimum allows it.
  const rest = await page
    .locator('#rest button.choice')
    .evaluateAll((buttons: HTMLElement[]) =>
      buttons.map((button) => [button.dataset.provider, button.querySelector('.provider-amount')?.textContent]),
    );
  expect(rest[0]).toEqual(['moonpay', '30.00 USD']); // the provider chosen last, first
  expect(rest).toContainEqual(['banxa', '30.00 USD']);
  expect(rest.map(([provider]) => provider)).not.toContain('utorg'); // its minimum is 50 USD
  await screenshot(page, 'receipt-underpaid-rest');

  // The shop was told the order is underpaid, with its figures signed into the callback.
  const first = await waitFor('the first callback', () => merchant.callbacks.find((url) => url.includes(`order=${order}`)), 60_000);
  expect(new URL(first).searchParams.get('order_state')).toBe('underpaid');

  // Banxa is behind "more providers"; then one click: a payment of the rest into the same wallet, straight to Banxa's
  // checkout (the sandbox's).
  await page.locator('#rest details.more-choices summary').click();
  await page.locator('#rest button[data-provider="banxa"]').click();
  await page.waitForURL(new RegExp(`^${stack.sandboxUrl}/`));
  expect(await page.locator('.amount').innerText()).toMatch(/^30\.00\s*USD$/);
  await payWithCard(page, '4242 4242 4242 4242');
  await page.waitForURL(`${stack.paymentUrl}/payment/**`, { timeout: 60_000 });
  const restId = new URL(page.url()).pathname.split('/')[2];
  expect(restId).not.toBe(firstId);
  await page.locator('#receipt[data-step="sent_to_merchant"]').waitFor({ timeout: 90_000 });
  expect(await page.locator('h1').innerText()).toBe('Payment complete');
  expect(await page.locator('#amount-note').innerText()).toBe('The rest of a 50.00 USD order');
  expect(await page.locator('.notice.ok').innerText()).toContain(
    'All of this 50.00 USD order arrived (49.25 USDC) and the shop has been paid.',
  );
  expect(await page.locator('#order-state').count()).toBe(0);
  expect(await page.locator('#rest').count()).toBe(0);
  await screenshot(page, 'receipt-rest-paid');

  // The rest's row keeps the order's expectation and names the attempt it completes.
  const { rows } = await stack.db.pool.query(
    `SELECT id, amount::text, completes, expected_usdc::text, amount_usd::text, usd_rate, tolerance_bps FROM payments
     WHERE id = ANY($1::uuid[]) ORDER BY created_at`,
    [[firstId, restId]],
  );
  expect(rows).toEqual([
    { id: firstId, amount: '50.00', completes: null, expected_usdc: '49250000', amount_usd: '50.00', usd_rate: '1', tolerance_bps: 100 },
    { id: restId, amount: '30.00', completes: firstId, expected_usdc: '49250000', amount_usd: '50.00', usd_rate: '1', tolerance_bps: 100 },
  ]);

  // The shop hears the order is now paid, and the first receipt says the same.
  const second = await waitFor('the second callback', () => merchant.callbacks.filter((url) => url.includes(`order=${order}`))[1], 60_000);
  expect(new URL(second).searchParams.get('order_state')).toBe('paid');
  await page.goto(`${stack.paymentUrl}/payment/${firstId}`);
  expect(await page.locator('h1').innerText()).toBe('Payment complete');
  expect(await page.locator('.notice.ok').innerText()).toContain(
    'All of this 50.00 USD order arrived (49.25 USDC) and the shop has been paid.',
  );
  await page.close();
}, 300_000);
