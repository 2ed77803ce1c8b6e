// The review's stuck-orphan proof, against the whole gateway running as separate processes: the
// chain-watcher reaches the node through a proxy that, like one lagging backend behind a load
// balancer, answers the deposit's block with another hash. Before issue 17 the watcher orphaned the
// deposit on that one answer and never looked at it again: the USDC sat in the temporary wallet with
// no payout and no callback. Now it is checked against its transaction's receipt and settles.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, createWalletClient, erc20Abi, http, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain } from '@gateway/chain';
import { RpcProxy, waitFor } from '@gateway/testkit';
import { startGatewayStack, type GatewayStack } from './support/gateway-stack';

const PAYOUT = '0x52908400098527886E0F7030069857D2E4169EE7' as Address;

let stack: GatewayStack;
let proxy: RpcProxy;
let merchant: Server;
let merchantUrl: string;
const received: string[] = [];

beforeAll(async () => {
  merchant = createServer((request, response) => {
    received.push(`${merchantUrl}${request.url}`);
    response.writeHead(200).end('*ok*');
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  stack = await startGatewayStack('e2e_lagging_rpc', {
    watcherRpcUrl: async (chainRpcUrl) => {
      proxy = await RpcProxy.start(chainRpcUrl);
      return proxy.url;
    },
  });
}, 150_000);

afterAll(async () => {
  await stack?.stop();
  await proxy?.close();
  await new Promise((resolve) => merchant.close(resolve));
});

it('a block answered with another hash does not strand the deposit: it is paid out and the merchant called back', async () => {
  const order = randomBytes(4).toString('hex');
  const callback = `${merchantUrl}/ipn?order=${order}`;
  const wallet = (await (
    await fetch(`${stack.walletControlUrl}/control/wallet.php?address=${PAYOUT}&callback=${encodeURIComponent(callback)}`)
  ).json()) as { polygon_address_in: Address };
  const viemChain = defineLocalChain({ rpcUrl: stack.chain.rpcUrl, chainId: stack.chain.chainId });
  const transport = http(stack.chain.rpcUrl, { retryCount: 0 });
  const sender = createWalletClient({ chain: viemChain, transport, account: privateKeyToAccount(stack.customer.privateKey) });
  const txIn = await sender.writeContract({
    address: stack.token,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [wallet.polygon_address_in, 10_000_000n],
  });
  const receipt = await createPublicClient({ chain: viemChain, transport }).waitForTransactionReceipt({ hash: txIn, pollingInterval: 100 });
  // Every read of that block through the watcher's RPC, for a while, carries another hash.
  proxy.misreportBlockHash(receipt.blockNumber, 20);

  const delivered = await waitFor('the callback', async () => received.find((url) => url.includes(`order=${order}`)), 90_000);
  expect(proxy.misreported).toBeGreaterThan(0);
  expect(new URL(delivered).searchParams.get('value_coin')).toBe('10');
  const { rows } = await stack.db.pool.query('SELECT status FROM deposits WHERE tx_hash = $1', [txIn.toLowerCase()]);
  expect(rows).toEqual([{ status: 'forwarded' }]);
});
