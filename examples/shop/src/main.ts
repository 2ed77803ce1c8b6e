// `pnpm --filter example-shop start` (Node 22.18 or later runs the TypeScript as it is). Settings:
// GATEWAY_BASE_URL and GATEWAY_PAYMENT_URL (the gateway's two hosts; the local stack's by default),
// PAYOUT_ADDRESS (the shop's USDC address), SHOP_URL (where the gateway reaches the shop), PORT.
import { createShop } from './shop.ts';

const port = Number(process.env.PORT ?? 3500);
const shop = createShop({
  baseUrl: process.env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:3100',
  paymentUrl: process.env.GATEWAY_PAYMENT_URL ?? 'http://127.0.0.1:3200',
  payoutAddress: process.env.PAYOUT_ADDRESS ?? '0x52908400098527886E0F7030069857D2E4169EE7',
  shopUrl: process.env.SHOP_URL ?? `http://127.0.0.1:${port}`,
});
shop.server.listen(port, '127.0.0.1', () => console.log(`Leaf & Kettle on http://127.0.0.1:${port}`));
