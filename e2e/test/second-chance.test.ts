import type { Browser } from 'playwright-core';
import { sleep, waitFor } from '@gateway/testkit';
import { DESKTOP, launchChromium, screenshot } from './support/browser';
import { startGatewayStack, type GatewayStack, closeInOrder } from './support/gateway-stack';
import { createWallet, payWithCard } from './support/customer';
import { startRecordingMerchant, type RecordingMerchant } from './support/merchant';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';

let stack: GatewayStack;
let browser: Browser;
let merchant: RecordingMerchant;

beforeAll(async () => {
  merchant = await startRecordingMerchant();
  stack = await startGatewayStack('second-chance');
  browser = await launchChromium();
}, 150_000);

afterAll(() => closeInOrder(browser, stack, merchant));

it('declined at MoonPay, paid at Banxa from the receipt page: one callback, Banxa named as the provider that paid', async () => {
  const order = `sc${Date.now()}`;
  const callback = `${merchant.url}/ipn?order=${order}`;
  const wallet = await createWallet(stack, PAYOUT, callback);
  const query = new URLSearchParams({
    address: wallet.address_in,
    amount: '30',
    provider: 'moonpay',
    email: 'jane@shop.io',
    currency: 'USD',
  });
  const page = await browser.newPage({ viewport: DESKTOP });

  await page.goto(`${stack.paymentUrl}/process-payment.php?${query}`);
  await payWithCard(page, '4000 0000 0000 0002');
  await expect(page.locator('body').innerText()).resolves.toMatch(/declined/i);
  const declinedId = await waitFor(
    'the declined payment',
    async () => {
      const { rows } = await stack.db.pool.query<{ id: string }>(
        `SELECT p.id FROM payments p JOIN wallets w ON w.id = p.wallet_id WHERE w.polygon_address = $1 AND p.provider_status = 'declined'`,
        [wallet.polygon_address_in.toLowerCase()],
      );
      return rows[0]?.id;
    },
    15_000,
  );

  // The receipt says what happened, and offers the other providers as buttons.
  await page.goto(`${stack.paymentUrl}/payment/${declinedId}`);
  expect(await page.locator('h1').innerText()).toBe('Your card was declined');
  expect(await page.locator('#receipt').innerText()).toContain('Tried with MoonPay');
  expect(await page.locator('#receipt').innerText()).not.toContain('Paid with');
  const choices = await page
    .locator('#second-chance button.choice')
    .evaluateAll((buttons: HTMLElement[]) => buttons.map((button) => button.getAttribute('data-provider')));
  expect(choices).toContain('banxa');
  expect(choices).not.toContain('moonpay');
  await screenshot(page, 'second-chance-declined');

  // The same receipt in another browser (another device): what happened, but no form to act with (issue 35).
  const elsewhere = await browser.newContext({ viewport: DESKTOP });
  const stranger = await elsewhere.newPage();
  await stranger.goto(`${stack.paymentUrl}/payment/${declinedId}`);
  expect(await stranger.locator('h1').innerText()).toBe('Your card was declined');
  expect(await stranger.locator('#second-chance').count()).toBe(0);
  expect(await stranger.locator('#second-chance-elsewhere').innerText()).toContain('in the browser you started the payment in');
  await screenshot(stranger, 'second-chance-elsewhere');
  const link = await stranger.goto(`${stack.paymentUrl}/payment/${declinedId}/checkout`);
  expect(link?.status()).toBe(403);
  await screenshot(stranger, 'checkout-link-without-key');
  await elsewhere.close();

  // One click: a new payment for the same wallet, straight to Banxa's checkout (the sandbox's).
  await page.locator('#second-chance button[data-provider="banxa"]').click();
  await page.waitForURL(new RegExp(`^${stack.sandboxUrl}/`));
  expect(await page.locator('body').innerText()).toMatch(/30/);
  await payWithCard(page, '4242 4242 4242 4242');
  await page.waitForURL(`${stack.paymentUrl}/payment/**`, { timeout: 60_000 });
  const paidId = new URL(page.url()).pathname.split('/')[2];
  expect(paidId).not.toBe(declinedId);
  await page.locator('#receipt[data-step="sent_to_merchant"]').waitFor({ timeout: 90_000 });
  expect(await page.locator('h1').innerText()).toBe('Payment complete');
  expect(await page.locator('#receipt').innerText()).toContain('Paid with Banxa');
  await screenshot(page, 'second-chance-paid');

  // The first attempt's page names the provider that paid, and links to it.
  await page.goto(`${stack.paymentUrl}/payment/${declinedId}`);
  expect(await page.locator('h1').innerText()).toBe('Paid with Banxa');
  expect(await page.locator(`a[href="/payment/${paidId}"]`).count()).toBe(1);
  await screenshot(page, 'second-chance-first-attempt');

  // The status API credits the deposit to Banxa's payment.
  const status = (await (await fetch(`${stack.walletControlUrl}/control/payment-status.php?ipn_token=${wallet.ipn_token}`)).json()) as {
    status: string;
    deposits: { payment_id: string; provider: string }[];
  };
  expect(status.status).toBe('paid');
  expect(status.deposits).toEqual([expect.objectContaining({ payment_id: paidId, provider: 'banxa' })]);

  // The sandbox reported the transaction it sent (as a provider that reports one does): it is the deposit credited to Banxa.
  const { rows } = await stack.db.pool.query<{ provider_tx_hash: string | null; tx_hash: string }>(
    `SELECT p.provider_tx_hash, d.tx_hash FROM payments p JOIN deposits d ON d.wallet_id = p.wallet_id WHERE p.id = $1`,
    [paidId],
  );
  expect(rows).toEqual([{ provider_tx_hash: rows[0]?.tx_hash, tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) }]);

  // Exactly one callback, even after a while.
  await waitFor('the callback', () => merchant.callbacks.find((url) => url.includes(`order=${order}`)), 90_000);
  await sleep(1500);
  expect(merchant.callbacks.filter((url) => url.includes(`order=${order}`))).toHaveLength(1);
  await page.close();
}, 240_000);
