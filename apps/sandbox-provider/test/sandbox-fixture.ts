import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, erc20Abi, http as httpTransport, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain, deployTestUsdc, mintTestUsdc } from '@gateway/chain';
import {
  sandboxCheckoutUrl,
  SANDBOX_WEBHOOK_SIGNATURE_HEADER,
  verifySandboxWebhook,
  type CheckoutOrder,
  type SandboxWebhookBody,
} from '@gateway/providers';
import { anvilAccounts, type RunningAnvil } from '@gateway/testkit';

export const DEPLOYER = anvilAccounts[0];
export const FUNDER = anvilAccounts[4];
export const FUNDER_START_BALANCE = 1_000_000n * 10n ** 6n;

/** Deploys the test USDC and funds the sandbox's account with it. */
export async function deployFundedToken(anvil: RunningAnvil): Promise<Address> {
  const token = await deployTestUsdc({ ...anvil, deployerKey: DEPLOYER.privateKey });
  await mintTestUsdc({ ...anvil, token, ownerKey: DEPLOYER.privateKey, to: FUNDER.address, amount: FUNDER_START_BALANCE });
  return token;
}

export function sandboxEnv(options: {
  anvil: RunningAnvil;
  token: Address;
  secret: Buffer;
  schema: string;
  databaseUrl: string;
  webhookBaseUrl?: string;
}): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: options.databaseUrl,
    DATABASE_SCHEMA: options.schema,
    CHAIN_RPC_URL: options.anvil.rpcUrl,
    CHAIN_ID: String(options.anvil.chainId),
    USDC_TOKEN_ADDRESS: options.token,
    SANDBOX_SIGNING_SECRET: options.secret.toString('base64'),
    SANDBOX_FUNDER_PRIVATE_KEY: FUNDER.privateKey,
    RATE_LIMIT_MAX: '100000',
    // The sample table of @gateway/rates (EUR 0.92 per USD), as the local stack uses.
    ...(options.webhookBaseUrl ? { GATEWAY_WEBHOOK_BASE_URL: options.webhookBaseUrl } : {}),
  };
}

export const newSecret = () => randomBytes(32);

/** A fresh temporary wallet: its balance starts at zero. */
export const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

export interface SignedLink {
  /** Path and query, for app.inject. */
  url: string;
  params: Record<string, string>;
  paymentId: string;
  address: Address;
  returnUrl: string;
}

/** A checkout link exactly as payment-redirect signs it. */
export function signedLink(secret: Buffer, overrides: Partial<CheckoutOrder> & { provider?: string } = {}): SignedLink {
  const { provider = 'moonpay', ...rest } = overrides;
  const paymentId = rest.paymentId ?? randomUUID();
  const request: CheckoutOrder = {
    paymentId,
    walletAddress: freshAddress(),
    amount: '49.99',
    currency: 'EUR',
    email: 'jane@shop.io',
    returnUrl: `http://127.0.0.1:3200/payment/${paymentId}`,
    customerIp: '127.0.0.1',
    ...rest,
  };
  const full = new URL(sandboxCheckoutUrl('http://127.0.0.1:3300', provider, request, secret));
  return {
    url: `${full.pathname}${full.search}`,
    params: Object.fromEntries(full.searchParams),
    paymentId,
    address: request.walletAddress as Address,
    returnUrl: request.returnUrl,
  };
}

export function usdcReader(anvil: RunningAnvil, token: Address) {
  // retryCount 0 so no retry timer outlives the chain (TOOLCHAIN trap 5).
  const client = createPublicClient({ chain: defineLocalChain(anvil), transport: httpTransport(anvil.rpcUrl, { retryCount: 0 }) });
  return (owner: Address) => client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}

export interface ReceivedWebhook {
  path: string;
  verified: boolean;
  body: SandboxWebhookBody;
}

/** Stands in for payment-redirect's /webhooks/<provider>: records each webhook and whether its signature holds. */
export async function startWebhookReceiver(secret: Buffer) {
  const received: ReceivedWebhook[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const header = request.headers[SANDBOX_WEBHOOK_SIGNATURE_HEADER];
      received.push({
        path: request.url ?? '',
        verified: verifySandboxWebhook(rawBody, typeof header === 'string' ? header : undefined, secret),
        body: JSON.parse(rawBody.toString('utf8')) as SandboxWebhookBody,
      });
      response.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end('{"status":"success"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    for: (paymentId: string) => received.filter((hook) => hook.body.payment_id === paymentId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The customer is sent on to the gateway's receipt: an approval page that navigates there by itself. */
export function returnedTo(response: { statusCode: number; body: string }): string | undefined {
  if (response.statusCode !== 200) return undefined;
  const refresh = /<meta http-equiv="refresh" content="2;url=([^"]+)">/.exec(response.body)?.[1];
  return refresh?.replace(/&amp;/g, '&');
}
