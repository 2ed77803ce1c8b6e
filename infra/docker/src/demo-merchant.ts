// The local stack's shop: an endpoint that checks each callback as a plugin would and logs it, and
// the demo order whose payment link the stack prints.
import { appendFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { CALLBACK_DELIVERY_ID_HEADER, CALLBACK_SIGNATURE_HEADER, verifyCallbackSignature } from '@usdc-card-gateway/sdk';

/** The demo shop's payout wallet: its orders are registered with it, and its callbacks must name it. */
export const DEMO_PAYOUT_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/**
 * The demo shop sells one thing: a 25 USD order, for which it wants at least 22.5 USDC on its
 * payout address (the price less up to 10% for the provider's and the gateway's fees). A shop
 * takes what it expects from its own order records, never from the callback URL: a stranger can
 * register the shop's payout with a query of their own (and, with consent, other terms).
 */
export const DEMO_ORDER = { amountUsd: '25', minimumUsdc: '22.5' } as const;

export interface DemoMerchantOptions {
  port: number;
  /** The interface to listen on: loopback for `pnpm demo`, every interface in a container. */
  host: string;
  /** The base URL the gateway calls (the one in the registered callback URLs): the signature covers it. */
  publicUrl: string;
  /** The callback-worker's public key (base64 SPKI). */
  publicSpki: string;
  /** One JSON line per callback; without it they are only printed. */
  logFile?: string;
}

export interface DemoMerchantCallback {
  receivedAt: string;
  deliveryId: string | string[] | undefined;
  signatureValid: boolean;
  query: Record<string, string>;
}

/** Answers `/healthz`; every other request is a callback, answered `*ok*` once its signature verifies. */
export function startDemoMerchant(options: DemoMerchantOptions): Promise<Server> {
  const publicKey = `-----BEGIN PUBLIC KEY-----\n${options.publicSpki}\n-----END PUBLIC KEY-----\n`;
  const base = options.publicUrl.replace(/\/+$/, '');
  const server = createServer((request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    const url = `${base}${request.url ?? '/'}`;
    // Every check the README asks of a shop: the v2 signature (a header stripped down to v1 is
    // refused), that the money went to its own payout address (address_out), not to whoever
    // registered its callback, and that what reached it (value_forwarded_coin) covers the order.
    const verdict = verifyCallbackSignature({
      url,
      header: request.headers[CALLBACK_SIGNATURE_HEADER],
      deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
      publicKeys: [publicKey],
      payoutAddress: DEMO_PAYOUT_ADDRESS,
      expectedAmount: DEMO_ORDER.minimumUsdc,
    });
    const entry: DemoMerchantCallback = {
      receivedAt: new Date().toISOString(),
      deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
      signatureValid: verdict.ok,
      query: Object.fromEntries(new URL(url).searchParams),
    };
    if (options.logFile) appendFileSync(options.logFile, `${JSON.stringify(entry)}\n`);
    console.log(
      `demo merchant: callback ${entry.query.order ?? ''} value_coin=${entry.query.value_coin} ` +
        `value_forwarded_coin=${entry.query.value_forwarded_coin} ` +
        (verdict.ok ? 'verified' : `REFUSED (${verdict.reason})`),
    );
    response.writeHead(verdict.ok ? 200 : 400, { 'content-type': 'text/plain' }).end(verdict.ok ? '*ok*' : verdict.reason);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}

export interface DemoOrderOptions {
  /** Where to call Create Wallet (wallet-control). */
  walletControlUrl: string;
  /** The payment host as a customer's browser reaches it. */
  paymentUrl: string;
  /** The demo merchant as the callback-worker reaches it. */
  merchantUrl: string;
  order: string;
}

export interface DemoOrderLinks {
  /** Process Payment with a provider chosen (the sandbox stands in for it). */
  link: string;
  /** The hosted checkout, where the customer chooses the provider. */
  hostedLink: string;
}

/** A wallet for a demo order (DEMO_ORDER) whose callback goes to the demo merchant, and its payment links. */
export async function createDemoOrder(options: DemoOrderOptions): Promise<DemoOrderLinks> {
  const callback = `${options.merchantUrl.replace(/\/+$/, '')}/ipn?order=${options.order}&shop=demo`;
  const query = new URLSearchParams({ address: DEMO_PAYOUT_ADDRESS, callback });
  const response = await fetch(`${options.walletControlUrl.replace(/\/+$/, '')}/control/wallet.php?${query}`);
  if (!response.ok) throw new Error(`Create Wallet answered ${response.status}: ${await response.text()}`);
  const wallet = (await response.json()) as { address_in: string };
  const demoOrder = { address: wallet.address_in, amount: DEMO_ORDER.amountUsd, email: 'jane@shop.io', currency: 'USD' };
  const base = options.paymentUrl.replace(/\/+$/, '');
  return {
    link: `${base}/process-payment.php?${new URLSearchParams({ ...demoOrder, provider: 'moonpay' })}`,
    hostedLink: `${base}/pay.php?${new URLSearchParams(demoOrder)}`,
  };
}
