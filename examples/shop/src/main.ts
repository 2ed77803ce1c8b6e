// `pnpm --filter example-shop start` (Node 22.18 or later runs the TypeScript as it is). Settings:
// GATEWAY_BASE_URL and GATEWAY_PAYMENT_URL (the gateway's two hosts; the local stack's by default),
// GATEWAY_CALLBACK_KEYS (the gateway's JWK set, pinned; required), PAYOUT_ADDRESS (the shop's USDC
// address), SHOP_URL (where the gateway reaches the shop), PORT.
import { GatewayClient, pinnedCallbackKeys, unpinnedCallbackKeys } from '@usdc-card-gateway/sdk';
import { createShop } from './shop.ts';

const port = Number(process.env.PORT ?? 3500);
const baseUrl = process.env.GATEWAY_BASE_URL ?? 'http://127.0.0.1:3100';
const paymentUrl = process.env.GATEWAY_PAYMENT_URL ?? 'http://127.0.0.1:3200';
let callbackKeys: ReturnType<typeof pinnedCallbackKeys>;
try {
  callbackKeys = pinnedCallbackKeys(process.env.GATEWAY_CALLBACK_KEYS ?? '');
} catch (error) {
  console.error(`GATEWAY_CALLBACK_KEYS: ${(error as Error).message}`);
  process.exit(1);
}
const shop = createShop({
  baseUrl,
  paymentUrl,
  payoutAddress: process.env.PAYOUT_ADDRESS ?? '0x52908400098527886E0F7030069857D2E4169EE7',
  shopUrl: process.env.SHOP_URL ?? `http://127.0.0.1:${port}`,
  callbackKeys,
});
shop.server.listen(port, '127.0.0.1', () => console.log(`Leaf & Kettle on http://127.0.0.1:${port}`));

// A key the gateway serves that is not pinned is an announced rotation, or an intruder's: said, never trusted.
new GatewayClient({ baseUrl, paymentUrl })
  .callbackPublicKeys()
  .then((served) => {
    for (const key of unpinnedCallbackKeys(served, callbackKeys)) {
      console.warn(
        `the gateway serves callback key ${String(key.kid)} (x=${String(key.x)}), not pinned: add it to GATEWAY_CALLBACK_KEYS once its operator confirms it`,
      );
    }
  })
  .catch((error: Error) => console.warn(`the gateway's callback keys could not be read: ${error.message}`));
