// The example shop (examples/shop, the merchant SDK alone) against the whole local stack, driven in
// Chromium as a customer: cart → "Pay by card" → the gateway's checkout page → the sandbox's card
// page → the receipt → the signed callback reaches the shop → the order page says "Paid".
import type { AddressInfo } from 'node:net';
import { pinnedCallbackKeys } from '@usdc-card-gateway/sdk';
import { createShop, type Shop } from 'example-shop';
import type { Browser } from 'playwright-core';
import { DESKTOP, launchChromium, screenshot } from './support/browser';
import { payWithCard, postCart } from './support/customer';
import { startGatewayStack, type GatewayStack } from './support/gateway-stack';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';

let stack: GatewayStack;
let browser: Browser;
let shop: Shop;
let shopUrl: string;

beforeAll(async () => {
  stack = await startGatewayStack('example_shop');
  // The shop's set-up: the gateway's JWK set, pinned (read once; a failed check never fetches it again).
  const callbackKeys = pinnedCallbackKeys(await (await fetch(`${stack.walletControlUrl}/.well-known/jwks.json`)).text());
  // The shop's URL is its callback origin: known once it listens, so the shop is made after a port is free.
  const probe = createShop({
    baseUrl: stack.walletControlUrl,
    paymentUrl: stack.paymentUrl,
    payoutAddress: PAYOUT,
    shopUrl: 'http://127.0.0.1',
    callbackKeys,
  });
  await new Promise<void>((resolve) => probe.server.listen(0, '127.0.0.1', resolve));
  const port = (probe.server.address() as AddressInfo).port;
  await new Promise((resolve) => probe.server.close(resolve));
  shopUrl = `http://127.0.0.1:${port}`;
  shop = createShop({ baseUrl: stack.walletControlUrl, paymentUrl: stack.paymentUrl, payoutAddress: PAYOUT, shopUrl, callbackKeys });
  await new Promise<void>((resolve) => shop.server.listen(port, '127.0.0.1', resolve));
  browser = await launchChromium();
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => shop?.server.close(resolve));
});

it('a customer fills the cart, pays by card at the sandbox, and the shop marks the order paid from the verified callback', async () => {
  const page = await browser.newPage({ viewport: DESKTOP });
  await page.goto(shopUrl);
  await page.fill('#sencha', '2');
  await page.fill('#pot', '1');
  await page.fill('#email', 'jane@shop.io');
  await screenshot(page, 'shop-01-cart');
  await page.click('button[type="submit"]');

  // The gateway's checkout page, branded with the shop's name, for 2 × 12.50 + 39.00.
  await page.waitForURL(`${stack.paymentUrl}/pay.php?**`);
  await expect(page.locator('#order-amount').innerText()).resolves.toMatch(/64\.00/);
  await expect(page.locator('header.site .brand').innerText()).resolves.toContain('Leaf & Kettle');
  await screenshot(page, 'shop-02-gateway-checkout');
  await page.locator('a.provider').first().click();

  await page.waitForURL(`${stack.sandboxUrl}/**`);
  await payWithCard(page, '4242 4242 4242 4242');
  await page.waitForURL(`${stack.paymentUrl}/payment/**`, { timeout: 60_000 });
  await page.locator('#receipt[data-step="sent_to_merchant"]').waitFor({ timeout: 90_000 });

  const [order] = [...shop.orders.values()];
  // 64.00 less the sandbox's 1.5 % on-ramp fee, less the 1 % platform fee: what the shop allows (62.40), and no less.
  expect(order).toMatchObject({ totalCents: 6400n, status: 'paid', received: '62.4096' });
  await page.goto(`${shopUrl}/orders/${order!.id}`);
  await expect(page.locator('#order-status').innerText()).resolves.toBe('Paid: 62.4096 USDC received. We are packing your tea.');
  await screenshot(page, 'shop-03-order-paid');
  await page.close();
}, 180_000);

it('refuses an empty cart, and a forged callback changes nothing', async () => {
  const empty = await postCart(shopUrl, 'email=jane%40shop.io');
  expect(empty.status).toBe(400);
  const created = await postCart(shopUrl, 'assam=1&email=jane%40shop.io');
  expect(created.status).toBe(303);
  const order = [...shop.orders.values()].find((candidate) => candidate.status === 'awaiting payment')!;
  const forged = await fetch(
    `${shopUrl}/payment/callback?order_id=${order.id}&value_coin=18.9&value_forwarded_coin=18.711&address_out=${PAYOUT}&ipn_token=${order.ipnToken}`,
    {
      headers: {
        'x-gateway-signature': `t=${Math.floor(Date.now() / 1000)},v2=${Buffer.alloc(64).toString('base64')}`,
        'x-gateway-delivery-id': 'forged-1',
      },
    },
  );
  expect(forged.status).toBe(401);
  expect(order.status).toBe('awaiting payment');
});
