import { createWalletClient, getAddress, http, type Hash, type Hex, type TransactionReceipt } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import {
  defineLocalChain,
  encodeTransferWithAuthorization,
  randomAuthorizationNonce,
  readTokenDomain,
  signTransferAuthorization,
  splitSignature,
  type TransferAuthorization,
  PUBLIC_TEST_MNEMONIC,
} from '@gateway/chain';
import { anvilAccounts, RpcProxy } from '@gateway/testkit';
import { SettlementChainClient } from '../../src/chain/settlement-chain-client';
import { relayerAccount, type SettlementFixture, settlementFixtureForFile, USDC } from '../support/settlement-fixture';

jest.setTimeout(120_000);

// Someone who is not the gateway: holds no key of ours, pays its own gas.
const stranger = anvilAccounts[3];

let fixture: SettlementFixture;

settlementFixtureForFile('third_party_relay', (started) => (fixture = started));

/** Submits a signed authorization from the stranger's account, as anyone who saw it could; mined at once. */
async function relayAsStranger(authorization: TransferAuthorization, signature: Hex): Promise<TransactionReceipt> {
  const wallet = createWalletClient({
    chain: defineLocalChain(fixture.anvil),
    transport: http(fixture.anvil.rpcUrl, { retryCount: 0 }),
    account: privateKeyToAccount(stranger.privateKey),
  });
  const hash = await wallet.sendTransaction({
    to: fixture.token,
    data: encodeTransferWithAuthorization(authorization, splitSignature(signature)),
    gas: 200_000n,
  });
  const receipt = await fixture.rpc.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`the stranger's relay ${hash} reverted`);
  return receipt;
}

describe('finding the transaction that used an authorization', () => {
  it('reads AuthorizationUsed logs in ranges the node accepts, halving a range it refuses', async () => {
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 2n * USDC);
    const depositBlock = (await fixture.rpc.getTransactionReceipt({ hash: deposit.txHash })).blockNumber;
    await fixture.testClient().mine({ blocks: 400 });

    const signer = mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: wallet.hdIndex });
    const authorization: TransferAuthorization = {
      from: wallet.address,
      to: wallet.payoutAddress,
      value: deposit.amount,
      validAfter: 0n,
      validBefore: 4_000_000_000n,
      nonce: randomAuthorizationNonce(),
    };
    const domain = await readTokenDomain(fixture.rpc, fixture.token);
    const { signature } = await signTransferAuthorization(signer, domain, authorization);
    const relayed = await relayAsStranger(authorization, signature);
    await fixture.testClient().mine({ blocks: 100 });

    const proxy = await RpcProxy.start(fixture.anvil.rpcUrl);
    try {
      proxy.maxLogRange = 60;
      const chain = await SettlementChainClient.connect({
        rpcUrl: proxy.url,
        chainId: fixture.anvil.chainId,
        token: fixture.token,
        pollingIntervalMs: 50,
        maxBlockRange: 200,
      });
      const use = await chain.findAuthorizationUse(wallet.address, authorization.nonce, depositBlock);
      expect(use).toEqual({ txHash: relayed.transactionHash, blockNumber: relayed.blockNumber, blockHash: relayed.blockHash });
      // 200 refused, 100 refused, 50 served: the width the node accepts, from the deposit block on.
      expect(proxy.logRangesRefused).toBe(2);
      expect(proxy.logRangesServed.every(([from, to]) => to - from + 1n <= 60n)).toBe(true);
      expect(proxy.logRangesServed[0]![0]).toBe(depositBlock);
      // It stops at the range that holds the use, not at the head.
      expect(proxy.logRangesServed.at(-1)![1]).toBeLessThan(relayed.blockNumber + 60n);

      const unused = await chain.findAuthorizationUse(wallet.address, randomAuthorizationNonce(), depositBlock);
      expect(unused).toBeNull();
      expect(proxy.logRangesServed.at(-1)![1]).toBe(await fixture.rpc.getBlockNumber());
    } finally {
      await proxy.close();
    }
  });
});

describe('an authorization relayed by someone else', () => {
  /** Worker stopped with both legs sent (not mined), the merchant's transaction then lost by the node. */
  async function merchantLegRelayedByStranger() {
    const { wallet, deposit } = await fixture.sendUnmined(10n * USDC);
    const client = fixture.testClient();
    await fixture.waitForSent(deposit.id);
    await fixture.stopApp();

    const [merchantTx] = await fixture.transactionsOf(deposit.id);
    await client.dropTransaction({ hash: merchantTx!.tx_hash as Hash });
    const { rows } = await fixture.db.pool.query<{
      to_address: string;
      amount: string;
      authorization_nonce: string;
      valid_before: string;
      signature: string;
    }>(
      `SELECT to_address, amount::text, authorization_nonce, valid_before::text, signature FROM payouts WHERE deposit_id = $1 AND leg = ` +
        `'merchant'`,
      [deposit.id],
    );
    const leg = rows[0]!;
    await client.setAutomine(true);
    const relayed = await relayAsStranger(
      {
        from: wallet.address,
        to: getAddress(leg.to_address),
        value: BigInt(leg.amount),
        validAfter: 0n,
        validBefore: BigInt(leg.valid_before),
        nonce: leg.authorization_nonce as Hex,
      },
      leg.signature as Hex,
    );
    return { wallet, deposit, merchantTx: merchantTx!, relayed };
  }

  it('confirms the leg with their transaction and never sends the authorization again; the relayer nonce is filled', async () => {
    const { wallet, deposit, merchantTx, relayed } = await merchantLegRelayedByStranger();
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_900_000n);

    await fixture.startApp({ STUCK_TX_TIMEOUT_MS: '600000' });
    await fixture.waitForPaidOut(deposit.id);

    const [merchantLeg] = await fixture.legsOf(deposit.id);
    expect(merchantLeg).toMatchObject({ leg: 'merchant', status: 'confirmed', tx_hash: relayed.transactionHash });
    expect((await fixture.deliveryOf(deposit.id))[0]).toMatchObject({ txid_out: relayed.transactionHash });
    // Our own transaction carrying the merchant's authorization was never mined, nor sent again.
    await expect(fixture.rpc.getTransactionReceipt({ hash: merchantTx.tx_hash as Hash })).rejects.toThrow();
    expect((await fixture.transactionsOf(deposit.id)).filter((t) => t.leg === 'merchant')).toHaveLength(1);
    // Its relayer nonce went to a 0-value transfer to the relayer itself, so the platform leg behind it was mined.
    const relayer = getAddress(relayerAccount.address);
    const filler = await findRelayerTransaction(relayer, BigInt(merchantTx.relayer_nonce));
    expect(filler).toMatchObject({ to: relayer.toLowerCase(), value: 0n, input: '0x' });

    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_900_000n);
    expect(await fixture.usdcBalance(fixture.platformFeeAddress)).toBeGreaterThanOrEqual(100_000n);
    const uses = await fixture.authorizationUses(wallet.address);
    for (const leg of await fixture.legsOf(deposit.id)) expect(uses.get(leg.authorization_nonce)).toBe(1);
  });
});

/** The mined transaction of `from` with this nonce, searched from the head back. */
async function findRelayerTransaction(from: string, nonce: bigint) {
  const head = await fixture.rpc.getBlockNumber();
  for (let number = head; number >= 0n && number > head - 200n; number -= 1n) {
    const block = await fixture.rpc.getBlock({ blockNumber: number, includeTransactions: true });
    const found = block.transactions.find((t) => t.from.toLowerCase() === from.toLowerCase() && BigInt(t.nonce) === nonce);
    if (found) return { to: found.to?.toLowerCase(), value: found.value, input: found.input };
  }
  return undefined;
}
