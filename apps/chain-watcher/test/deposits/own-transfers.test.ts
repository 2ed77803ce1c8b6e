import { waitFor } from '@gateway/testkit';
import type { FastifyInstance } from 'fastify';
import { createWalletClient, http, parseAbi, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { defineLocalChain } from '@gateway/chain';
import { insertWallet } from '../support/wallets';
import { depositsOf, metricValue, useWatcherBed, readUpToHead } from '../support/watcher-fixture';

jest.setTimeout(60_000);

const bed = useWatcherBed('watcher_own');
const transferAbi = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

let app: FastifyInstance;

/** A wallet row whose temporary address this test holds the key of, so it can send from it. */
async function temporaryWalletWithKey(): Promise<{ id: string; account: PrivateKeyAccount }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const { id } = await insertWallet(bed.db.pool, account.address);
  return { id, account };
}

/** Gives `account` gas and USDC, then has it send `amount` USDC to `to`; resolves once mined. */
async function sendFrom(account: PrivateKeyAccount, to: string, amount: bigint): Promise<Hex> {
  await bed.chain.publicClient.request({
    method: 'anvil_setBalance' as 'eth_chainId',
    params: [account.address, `0x${parseEther('1').toString(16)}`] as never,
  });
  const client = createWalletClient({
    account,
    chain: defineLocalChain(bed.chain.anvil),
    transport: http(bed.chain.anvil.rpcUrl, { retryCount: 0 }),
  });
  const hash = await client.writeContract({
    address: bed.chain.token,
    abi: transferAbi,
    functionName: 'transfer',
    args: [to as Address, amount],
  });
  const receipt = await bed.chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`transfer ${hash} reverted`);
  return hash;
}

beforeAll(async () => {
  app = await bed.watch();
});

describe("transfers from the gateway's own wallets", () => {
  it('a transfer from temporary wallet A to temporary wallet B creates no deposit to settle', async () => {
    const a = await temporaryWalletWithKey();
    const b = await insertWallet(bed.db.pool);
    // A's customer deposit is real and recorded...
    await bed.chain.sendUsdc(a.account.address, 2_000_000n);
    await waitFor("A's deposit", async () => (await depositsOf(bed.db.pool, a.id)).length === 1);
    // ...but what A then sends to B (say, a payout address pointing at B) is not a customer's payment.
    await sendFrom(a.account, b.address, 1_500_000n);
    await readUpToHead(app, bed.chain);

    expect(await depositsOf(bed.db.pool, b.id)).toEqual([]);
    expect(await metricValue(app, 'chain_watcher_own_transfers_total', { from: 'temporary_wallet' })).toBe(1);
  });

  it('a transfer from the relayer or the platform fee address (registered by the settlement worker) creates no deposit either', async () => {
    const relayer = privateKeyToAccount(generatePrivateKey());
    const feeAddress = privateKeyToAccount(generatePrivateKey());
    await bed.db.pool.query(`INSERT INTO gateway_addresses (address, role) VALUES ($1, 'relayer'), ($2, 'platform_fee')`, [
      relayer.address.toLowerCase(),
      feeAddress.address.toLowerCase(),
    ]);
    const b = await insertWallet(bed.db.pool);
    for (const own of [relayer, feeAddress]) {
      await bed.chain.sendUsdc(own.address, 1_000_000n);
      await sendFrom(own, b.address, 1_000_000n);
    }
    // A stranger's transfer in the same blocks is a deposit as always.
    await bed.chain.sendUsdc(b.address, 700_000n);
    await waitFor("the stranger's deposit", async () => (await depositsOf(bed.db.pool, b.id)).length >= 1);
    await readUpToHead(app, bed.chain);

    expect((await depositsOf(bed.db.pool, b.id)).map((deposit) => [deposit.fromAddress, deposit.amount])).toEqual([
      [bed.chain.sender.toLowerCase(), '700000'],
    ]);
    expect(await metricValue(app, 'chain_watcher_own_transfers_total', { from: 'relayer' })).toBe(1);
    expect(await metricValue(app, 'chain_watcher_own_transfers_total', { from: 'platform_fee' })).toBe(1);
  });
});
