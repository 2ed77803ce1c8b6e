import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { SANDBOX_WEBHOOK_SIGNATURE_HEADER, signSandboxWebhook } from '@gateway/providers';
import type { PaymentRedirectConfig } from '../../src/config';
import type { PaymentRedirectFixture } from './payment-redirect-fixture';

/**
 * Posts `body` to `/webhooks/<provider>` signed as the sandbox signs (it stands in for every provider
 * in these tests), with the app's own secret unless another is given.
 */
export function sandboxWebhook(
  app: FastifyInstance,
  config: PaymentRedirectConfig,
  body: object,
  { provider = 'moonpay', secret = config.sandbox!.signingSecret }: { provider?: string; secret?: Buffer } = {},
): Promise<LightMyRequestResponse> {
  const payload = JSON.stringify(body);
  return app.inject({
    method: 'POST',
    url: `/webhooks/${provider}`,
    payload,
    headers: { 'content-type': 'application/json', [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(payload, secret) },
  });
}

/**
 * A wallet of its own (the `index`-th of the file) and a 49.99 USD MoonPay payment into it, started
 * as a JSON client: its payment id and temporary address.
 */
export async function moonpayPayment(
  fixture: PaymentRedirectFixture,
  app: FastifyInstance,
  config: PaymentRedirectConfig,
  index: number,
): Promise<{ paymentId: string; temporary: EvmAddress }> {
  const temporary = `0x${index.toString(16).padStart(40, 'c')}` as EvmAddress;
  const addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: `https://shop.io/ipn?order=${index}`, hdIndex: BigInt(index) });
  const response = await app.inject({
    url: '/process-payment.php',
    query: { address: addressIn, amount: '49.99', provider: 'moonpay', email: 'jane@shop.io', currency: 'USD' },
    headers: { accept: 'application/json' },
  });
  if (response.statusCode !== 200) throw new Error(`Process Payment answered ${response.statusCode}: ${response.body}`);
  return { paymentId: response.json().payment_id, temporary };
}
