// The whole gateway as separate processes, as in production: Create Wallet over HTTP, USDC sent on
// a real chain, the chain-watcher, the settlement-worker and the callback-worker, and a merchant
// stub that receives the signed callback. Nothing is called in-process.
import { randomBytes } from 'node:crypto';
import { erc20Abi, type Address } from 'viem';
import { sleep, waitFor } from '@gateway/testkit';
import { startGatewayStack, type GatewayStack, closeInOrder } from './support/gateway-stack';
import { chainReader, createWallet, customerPays } from './support/customer';
import { checkCallback, startMerchant, type Merchant } from './support/merchant';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7' as Address;

interface ReceivedCallback {
  url: string;
  signatureValid: boolean;
}

let stack: GatewayStack;
let merchant: Merchant;
const received: ReceivedCallback[] = [];

beforeAll(async () => {
  merchant = await startMerchant((url, request, response) => {
    // Each test asserts the amounts it paid from value_forwarded_coin itself.
    const verdict = checkCallback(url, request, { publicKey: stack.callbackPublicKey, payoutAddress: PAYOUT, amount: false });
    received.push({ url, signatureValid: verdict.ok });
    response.writeHead(200).end('*ok*');
  });
  stack = await startGatewayStack('e2e');
}, 150_000);

afterAll(() => closeInOrder(stack, merchant));

it('turns USDC sent to a temporary wallet into a payout and one signed callback with the amounts', async () => {
  const order = randomBytes(4).toString('hex');
  const callback = `${merchant.url}/ipn?order=${order}&note=a%20b`;
  const wallet = await createWallet(stack, PAYOUT, callback);

  const { token, db } = stack;
  const reader = chainReader(stack);
  const { hash: txIn } = await customerPays(stack, wallet.polygon_address_in, 25_000_001n);

  const delivered = await waitFor('the callback', async () => received.find((entry) => entry.url.includes(`order=${order}`)), 90_000);
  const query = new URL(delivered.url).searchParams;
  expect(delivered.signatureValid).toBe(true);
  expect(delivered.url.startsWith(`${callback}&value_coin=`)).toBe(true);
  expect(Object.fromEntries(query)).toMatchObject({
    order,
    note: 'a b',
    value_coin: '25.000001',
    value_forwarded_coin: '24.750001',
    fee_coin: '0.25',
    coin: 'polygon_usdc',
    txid_in: txIn,
    address_in: wallet.polygon_address_in,
    address_out: PAYOUT,
    ipn_token: wallet.ipn_token,
  });

  const balance = (owner: Address) => reader.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  expect(await balance(PAYOUT)).toBe(24_750_001n);
  expect(await balance(stack.platformFeeAddress)).toBe(250_000n);
  expect(await balance(wallet.polygon_address_in)).toBe(0n);
  expect(await reader.getBalance({ address: wallet.polygon_address_in })).toBe(0n);
  const { rows } = await db.pool.query('SELECT status FROM deposits WHERE tx_hash = $1', [txIn]);
  expect(rows).toEqual([{ status: 'forwarded' }]);
  // Exactly one callback for this deposit.
  await sleep(1000);
  expect(received.filter((entry) => entry.url.includes(`order=${order}`))).toHaveLength(1);
}, 120_000);
