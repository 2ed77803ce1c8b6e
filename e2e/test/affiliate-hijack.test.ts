// Issue 22's attack, over real HTTP against the whole gateway as separate processes with the
// default settings (open mode: no PAYOUT_ADDRESSES, no AFFILIATE_ADDRESSES, CALLBACK_OWNERSHIP=path).
// Steps 1-3 end in a 4xx; "step 4", paying in, is then only possible into a wallet with the
// stranger's own payout address on a path the shop has not used, and the shop's SDK check refuses
// that callback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWalletClient, erc20Abi, http, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain } from '@gateway/chain';
import { CALLBACK_DELIVERY_ID_HEADER, CALLBACK_SIGNATURE_HEADER, verifyCallbackSignature } from '@usdc-card-gateway/sdk';
import { waitFor } from '@gateway/testkit';
import { startGatewayStack, type GatewayStack } from './support/gateway-stack';

const SHOP_PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';
const STRANGER = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const STRANGER_AFFILIATE = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

let stack: GatewayStack;
let shop: Server;
let shopUrl: string;
const verdicts: Array<{ url: string; ok: boolean; reason?: string }> = [];

beforeAll(async () => {
  // The shop checks every callback as the README says: v2 signature, its payout address, its amount.
  shop = createServer((request, response) => {
    const url = `${shopUrl}${request.url}`;
    const verdict = verifyCallbackSignature({
      url,
      header: request.headers[CALLBACK_SIGNATURE_HEADER],
      deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
      publicKeys: [stack.callbackPublicKey],
      payoutAddress: SHOP_PAYOUT,
      expectedAmount: '24',
    });
    verdicts.push({ url, ok: verdict.ok, ...(verdict.ok ? {} : { reason: verdict.reason }) });
    response.writeHead(verdict.ok ? 200 : 400).end(verdict.ok ? '*ok*' : verdict.reason);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  stack = await startGatewayStack('e2e_hijack');
}, 150_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => shop.close(resolve));
});

const call = (path: string, query: Record<string, string>) =>
  fetch(`${stack.walletControlUrl}${path}?${new URLSearchParams(query)}`).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as Record<string, string>,
  }));

it('steps 1-3 end in a 4xx; a stranger pays only into their own wallet, whose callback the shop refuses', async () => {
  const callback = `${shopUrl}/ipn?order_id=1234`;
  expect((await call('/control/wallet.php', { address: SHOP_PAYOUT, callback })).status).toBe(200);

  // 1. the shop's own callback with another payout address
  expect(await call('/control/wallet.php', { address: STRANGER, callback })).toMatchObject({
    status: 409,
    body: { code: 'callback_registered_elsewhere' },
  });
  // 2. the same order with another query byte string
  expect(await call('/control/wallet.php', { address: STRANGER, callback: `${callback}&x=1` })).toMatchObject({
    status: 409,
    body: { code: 'callback_registered_elsewhere' },
  });
  // 3. the shop's own payout, that variant, the stranger's affiliate at 99%
  const step3 = await call('/control/custom-affiliate.php', {
    address: SHOP_PAYOUT,
    callback: `${callback}&x=1`,
    affiliate: STRANGER_AFFILIATE,
    merchant_fee: '0',
    affiliate_fee: '0.99',
  });
  expect(step3).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'merchant_fee' } });
  const token = await call('/control/custom-affiliate.php', {
    address: SHOP_PAYOUT,
    callback: `${callback}&x=1`,
    affiliate: STRANGER_AFFILIATE,
    merchant_fee: '0.0001',
    affiliate_fee: '0.9899',
  });
  expect(token).toMatchObject({ status: 403, body: { code: 'affiliate_consent_required' } });

  // 4. What is left: the stranger's own payout on a path the shop has not used. Paid, its callback
  // says address_out = the stranger, and the shop refuses it.
  const unused = `${shopUrl}/other-ipn?order_id=1234`;
  const wallet = await call('/control/wallet.php', { address: STRANGER, callback: unused });
  expect(wallet.status).toBe(200);
  const viemChain = defineLocalChain({ rpcUrl: stack.chain.rpcUrl, chainId: stack.chain.chainId });
  const sender = createWalletClient({
    chain: viemChain,
    transport: http(stack.chain.rpcUrl, { retryCount: 0 }),
    account: privateKeyToAccount(stack.customer.privateKey),
  });
  await sender.writeContract({
    address: stack.token,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [wallet.body.polygon_address_in as Address, 25_000_000n],
  });
  const verdict = await waitFor('the callback', async () => verdicts.find((entry) => entry.url.startsWith(unused)), 90_000);
  expect(verdict).toMatchObject({ ok: false, reason: 'address_out_mismatch' });
  expect(verdicts.filter((entry) => entry.ok)).toEqual([]);
}, 120_000);
