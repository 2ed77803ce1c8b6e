import { waitFor } from '@gateway/testkit';
import { startGatewayStack, type GatewayStack, closeInOrder } from './support/gateway-stack';
import type { Address } from 'viem';
import { customerPays } from './support/customer';
import { checkCallback, startMerchant, type Merchant } from './support/merchant';

const SHOP_PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7';
const STRANGER = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const STRANGER_AFFILIATE = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

let stack: GatewayStack;
let shop: Merchant;
const verdicts: Array<{ url: string; ok: boolean; reason?: string }> = [];

beforeAll(async () => {
  // The shop checks every callback as the README says: v2 signature, its payout address, its amount.
  shop = await startMerchant((url, request, response) => {
    const verdict = checkCallback(url, request, { publicKey: stack.callbackPublicKey, payoutAddress: SHOP_PAYOUT, amount: '24' });
    verdicts.push({ url, ok: verdict.ok, ...(verdict.ok ? {} : { reason: verdict.reason }) });
    response.writeHead(verdict.ok ? 200 : 400).end(verdict.ok ? '*ok*' : verdict.reason);
  });
  stack = await startGatewayStack('e2e_hijack');
}, 150_000);

afterAll(() => closeInOrder(stack, shop));

const call = (path: string, query: Record<string, string>) =>
  fetch(`${stack.walletControlUrl}${path}?${new URLSearchParams(query)}`).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as Record<string, string>,
  }));

it('steps 1-3 end in a 4xx; a stranger pays only into their own wallet, whose callback the shop refuses', async () => {
  const callback = `${shop.url}/ipn?order_id=1234`;
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
  const unused = `${shop.url}/other-ipn?order_id=1234`;
  const wallet = await call('/control/wallet.php', { address: STRANGER, callback: unused });
  expect(wallet.status).toBe(200);
  await customerPays(stack, wallet.body.polygon_address_in as Address, 25_000_000n);
  const verdict = await waitFor('the callback', async () => verdicts.find((entry) => entry.url.startsWith(unused)), 90_000);
  expect(verdict).toMatchObject({ ok: false, reason: 'address_out_mismatch' });
  expect(verdicts.filter((entry) => entry.ok)).toEqual([]);
}, 120_000);
