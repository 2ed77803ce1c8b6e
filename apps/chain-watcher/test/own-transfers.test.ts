import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Queue } from 'bullmq';
import { createWalletClient, http, parseAbi, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { defineLocalChain } from '@gateway/chain';
import type { SettlementJob } from '@gateway/queue';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { startLocalChain, type LocalChain } from './support/local-chain';
import { insertWallet } from './support/wallets';
import { depositsOf, metricValue, settlementQueue, startWatcher, uniqueRedisPrefix, waitFor } from './support/watcher-fixture';

jest.setTimeout(60_000);

const transferAbi = parseAbi(['function transfer(address to, uint256 value) returns (bool)']);

let db: TestDatabase;
let chain: LocalChain;
let queue: Queue<SettlementJob>;
let app: FastifyInstance;

/** A wallet row whose temporary address this test holds the key of, so it can send from it. */
async function temporaryWalletWithKey(): Promise<{ id: string; account: PrivateKeyAccount }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token)
     VALUES (nextval('wallet_hd_index_seq'), $1, $2, $3, $4, $5, $6) RETURNING id::text AS id`,
    [
      account.address.toLowerCase(),
      `test-${randomBytes(16).toString('hex')}`,
      `0x${randomBytes(20).toString('hex')}`,
      `https://shop.example/ipn?order=${randomBytes(4).toString('hex')}`,
      randomBytes(32),
      randomBytes(24).toString('hex'),
    ],
  );
  return { id: rows[0]!.id, account };
}

/** Gives `account` gas and USDC, then has it send `amount` USDC to `to`; resolves once mined. */
async function sendFrom(account: PrivateKeyAccount, to: string, amount: bigint): Promise<Hex> {
  await chain.publicClient.request({
    method: 'anvil_setBalance' as 'eth_chainId',
    params: [account.address, `0x${parseEther('1').toString(16)}`] as never,
  });
  const client = createWalletClient({
    account,
    chain: defineLocalChain(chain.anvil),
    transport: http(chain.anvil.rpcUrl, { retryCount: 0 }),
  });
  const hash = await client.writeContract({
    address: chain.token,
    abi: transferAbi,
    functionName: 'transfer',
    args: [to as Address, amount],
  });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`transfer ${hash} reverted`);
  return hash;
}

async function watchedUpToHead(): Promise<void> {
  const head = await chain.head();
  await waitFor(`cursor at ${head}`, async () => BigInt(app.chainWatcher.status().cursorBlock ?? -1) >= head);
}

beforeAll(async () => {
  [db, chain] = await Promise.all([createTestDatabase('watcher_own'), startLocalChain()]);
  const target = { db, rpcUrl: chain.anvil.rpcUrl, token: chain.token, redisPrefix: uniqueRedisPrefix() };
  queue = settlementQueue(target.redisPrefix);
  app = await startWatcher(target);
  await waitFor('the first cursor', async () => app.chainWatcher.status().cursorBlock !== null);
});

afterAll(async () => {
  await app?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await chain?.stop();
  await db?.drop();
});

describe("transfers from the gateway's own wallets", () => {
  it('a transfer from temporary wallet A to temporary wallet B creates no deposit to settle', async () => {
    const a = await temporaryWalletWithKey();
    const b = await insertWallet(db.pool);
    // A's customer deposit is real and recorded...
    await chain.sendUsdc(a.account.address, 2_000_000n);
    await waitFor("A's deposit", async () => (await depositsOf(db.pool, a.id)).length === 1);
    // ...but what A then sends to B (say, a payout address pointing at B) is not a customer's payment.
    await sendFrom(a.account, b.address, 1_500_000n);
    await watchedUpToHead();

    expect(await depositsOf(db.pool, b.id)).toEqual([]);
    expect(await metricValue(app, 'chain_watcher_own_transfers_total', { from: 'temporary_wallet' })).toBe(1);
  });

  it('a transfer from the relayer or the platform fee address (registered by the settlement worker) creates no deposit either', async () => {
    const relayer = privateKeyToAccount(generatePrivateKey());
    const feeAddress = privateKeyToAccount(generatePrivateKey());
    await db.pool.query(`INSERT INTO gateway_addresses (address, role) VALUES ($1, 'relayer'), ($2, 'platform_fee')`, [
      relayer.address.toLowerCase(),
      feeAddress.address.toLowerCase(),
    ]);
    const b = await insertWallet(db.pool);
    for (const own of [relayer, feeAddress]) {
      await chain.sendUsdc(own.address, 1_000_000n);
      await sendFrom(own, b.address, 1_000_000n);
    }
    // A stranger's transfer in the same blocks is a deposit as always.
    await chain.sendUsdc(b.address, 700_000n);
    await waitFor("the stranger's deposit", async () => (await depositsOf(db.pool, b.id)).length >= 1);
    await watchedUpToHead();

    expect((await depositsOf(db.pool, b.id)).map((deposit) => [deposit.fromAddress, deposit.amount])).toEqual([
      [chain.sender.toLowerCase(), '700000'],
    ]);
    expect(await metricValue(app, 'chain_watcher_own_transfers_total', { from: 'relayer' })).toBe(1);
    expect(await metricValue(app, 'chain_watcher_own_transfers_total', { from: 'platform_fee' })).toBe(1);
  });
});
