// The review's stuck-orphan proof, against the whole gateway running as separate processes: the
// chain-watcher reaches the node through a proxy that, like one lagging backend behind a load
// balancer, answers the deposit's block with another hash. Before issue 17 the watcher orphaned the
// deposit on that one answer and never looked at it again: the USDC sat in the temporary wallet with
// no payout and no callback. Now it is checked against its transaction's receipt and settles.
import { randomBytes } from 'node:crypto';
import { RpcProxy, waitFor } from '@gateway/testkit';
import { startGatewayStack, type GatewayStack, closeInOrder } from './support/gateway-stack';
import type { Address } from 'viem';
import { createWallet, customerPays } from './support/customer';
import { startRecordingMerchant, type RecordingMerchant } from './support/merchant';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7' as Address;

let stack: GatewayStack;
let proxy: RpcProxy;
let merchant: RecordingMerchant;

beforeAll(async () => {
  merchant = await startRecordingMerchant();
  stack = await startGatewayStack('e2e_lagging_rpc', {
    watcherRpcUrl: async (chainRpcUrl) => {
      proxy = await RpcProxy.start(chainRpcUrl);
      return proxy.url;
    },
  });
}, 150_000);

afterAll(() => closeInOrder(stack, proxy, merchant));

it('a block answered with another hash does not strand the deposit: it is paid out and the merchant called back', async () => {
  const order = randomBytes(4).toString('hex');
  const callback = `${merchant.url}/ipn?order=${order}`;
  const wallet = await createWallet(stack, PAYOUT, callback);
  const { hash: txIn, blockNumber } = await customerPays(stack, wallet.polygon_address_in, 10_000_000n);
  // Every read of that block through the watcher's RPC, for a while, carries another hash.
  proxy.misreportBlockHash(blockNumber, 20);

  const delivered = await waitFor('the callback', async () => merchant.callbacks.find((url) => url.includes(`order=${order}`)), 90_000);
  expect(proxy.misreported).toBeGreaterThan(0);
  expect(new URL(delivered).searchParams.get('value_coin')).toBe('10');
  const { rows } = await stack.db.pool.query('SELECT status FROM deposits WHERE tx_hash = $1', [txIn.toLowerCase()]);
  expect(rows).toEqual([{ status: 'forwarded' }]);
});
