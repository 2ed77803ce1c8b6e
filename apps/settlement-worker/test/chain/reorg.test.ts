import { getAddress, type Address, type Hash, type Hex } from 'viem';
import { encodeTransferWithAuthorization, setTestUsdcBlacklisted, splitSignature, usdcAbi } from '@gateway/chain';
import { anvilAccounts, type RpcProxy, sleep, waitFor } from '@gateway/testkit';
import {
  type SettlementFixture,
  settlementFixtureWithProxyForFile,
  USDC,
  type TestDeposit,
  type TestWallet,
} from '../support/settlement-fixture';
import { replanDeposit } from '../../src/operator';

// The workers meet a chain that changes its mind: a block holding a payout leg's transaction, or
// a replan's cancellation, is replaced by a reorg. Nothing may count as paid (or cancelled) until
// it is final by the finality rule and still canonical, and the deposit is paid exactly once.

jest.setTimeout(120_000);

let fixture: SettlementFixture;
let proxy: RpcProxy;

settlementFixtureWithProxyForFile('reorg', (started, node) => ([fixture, proxy] = [started, node]));

/**
 * Paid exactly once, on the chain as it is now: the merchant and the fee received their shares
 * once, each authorization was used once, and each confirmed leg names a transaction whose block
 * is canonical.
 */
async function paidOnceOnTheCanonicalChain(wallet: TestWallet, deposit: TestDeposit, feesBefore: bigint): Promise<void> {
  await fixture.waitForPaidOut(deposit.id);
  const legs = await fixture.legsOf(deposit.id);
  expect(legs.map((leg) => [leg.leg, leg.status])).toEqual([
    ['merchant', 'confirmed'],
    ['platform', 'confirmed'],
  ]);
  expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe((deposit.amount * 99n) / 100n);
  expect(await fixture.usdcBalance(fixture.platformFeeAddress)).toBe(feesBefore + deposit.amount / 100n);
  expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
  const uses = await fixture.authorizationUses(wallet.address);
  for (const leg of legs) {
    expect(uses.get(leg.authorization_nonce)).toBe(1);
    const receipt = await fixture.rpc.getTransactionReceipt({ hash: leg.tx_hash as Hash });
    expect((await fixture.rpc.getBlock({ blockNumber: receipt.blockNumber })).hash).toBe(receipt.blockHash);
  }
  expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
}

describe('a payout leg in a block a reorg removes', () => {
  it('is not confirmed while its block is not final; the reorg drops it, it is sent again and paid once', async () => {
    // Finality stalls at the deposit: the legs are mined and wait.
    proxy.finalizedTag = { stalledAt: await fixture.rpc.getBlockNumber() };
    await fixture.startApp({ CHAIN_RPC_URL: proxy.url, CONFIRMATIONS: '3' });
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 10n * USDC);
    const feesBefore = await fixture.usdcBalance(fixture.platformFeeAddress);
    const beforeLegs = await fixture.testClient().snapshot();
    await fixture.enqueue(deposit.id);
    await fixture.bothLegsMined(deposit.id);
    await fixture.testClient().mine({ blocks: 5 });
    await sleep(1_000);
    expect((await fixture.legsOf(deposit.id)).map((leg) => leg.status)).not.toContain('confirmed');
    expect(await fixture.depositStatus(deposit.id)).toBe('forwarding');

    // A longer chain without the legs' blocks; then finality moves on.
    await fixture.testClient().revert({ id: beforeLegs });
    await fixture.testClient().mine({ blocks: 10 });
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(0n);
    proxy.finalizedTag = 'pass';
    await paidOnceOnTheCanonicalChain(wallet, deposit, feesBefore);
  });

  it('final by CONFIRMATIONS, yet replaced between reading its receipt and checking its block: not confirmed, sent again, paid once', async () => {
    // A node without the finalized tag: depth decides, and a reorg deeper than CONFIRMATIONS can
    // still replace the block while the worker looks at it.
    proxy.finalizedTag = 'refuse';
    await fixture.startApp({ CHAIN_RPC_URL: proxy.url, CONFIRMATIONS: '3' });
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 20n * USDC);
    const feesBefore = await fixture.usdcBalance(fixture.platformFeeAddress);
    const beforeLegs = await fixture.testClient().snapshot();
    await fixture.enqueue(deposit.id);
    await fixture.bothLegsMined(deposit.id);
    await waitFor('depth mode', async () => (await fixture.metric('chain_finality_mode', 'mode="depth"')) === 1, 20_000);

    // The legs are one block deep. The worker reads a leg's receipt, then the head: right then the
    // chain is replaced by a longer one without the legs, so the receipt's block is deep enough
    // by number, and only its hash tells it is gone.
    let reorged = false;
    proxy.beforeCall(
      (call) => call.method === 'eth_blockNumber',
      async () => {
        await fixture.testClient().revert({ id: beforeLegs });
        await fixture.testClient().mine({ blocks: 10 });
        reorged = true;
      },
    );
    await waitFor('the reorg during the check', async () => reorged, 20_000);
    await sleep(1_000);
    // (They may be mined again already: anvil mines each transaction at once; 3 blocks are not on top yet.)
    expect((await fixture.legsOf(deposit.id)).map((leg) => leg.status)).not.toContain('confirmed');

    // Sent again into the new chain, mined, and final once 3 blocks are on top.
    await fixture.bothLegsMined(deposit.id);
    await fixture.testClient().mine({ blocks: 3 });
    await paidOnceOnTheCanonicalChain(wallet, deposit, feesBefore);
  });
});

describe('a replan whose cancellation a reorg removes', () => {
  it('waits until the cancellation is final; when a reorg drops it, cancels again before the new plan, and pays once', async () => {
    const { wallet, deposit } = await fixture.payoutAddressBlocked(10n * USDC);
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.payoutAddress, false);
    const [oldMerchant] = await fixture.legsOf(deposit.id);
    // The replan command's work, against a node whose finality is stalled before the cancellation.
    proxy.finalizedTag = { stalledAt: await fixture.rpc.getBlockNumber() };
    const config = fixture.config({ CHAIN_RPC_URL: proxy.url });
    const run = (timeoutMs: number) =>
      replanDeposit(config, fixture.db.appPool('settlement-worker'), deposit.id, { timeoutMs, report: () => undefined });
    const beforeCancellation = await fixture.testClient().snapshot();
    expect(await run(2_000)).toEqual({ result: 'timed_out', pending: ['merchant'] });
    // Mined, but not final: the old plan stands, nothing new is planned.
    expect(await cancellations(wallet.address, oldMerchant!.authorization_nonce)).toBe(1);
    expect(await fixture.depositStatus(deposit.id)).toBe('needs_attention');
    expect((await fixture.legsOf(deposit.id)).map((leg) => leg.status)).toEqual([
      'needs_attention',
      expect.not.stringMatching(/cancelled/),
    ]);

    // The reorg drops the cancellation: the old authorization could pay again.
    await fixture.testClient().revert({ id: beforeCancellation });
    await fixture.testClient().mine({ blocks: 5 });
    expect(await cancellations(wallet.address, oldMerchant!.authorization_nonce)).toBe(0);
    expect(await authorizationState(wallet.address, oldMerchant!.authorization_nonce)).toBe(false);

    // Finality moves on; run again: the cancellation is sent again, final, and only then the new plan.
    proxy.finalizedTag = 'pass';
    // The command queues it (its last job ended with the deposit in needs_attention).
    expect(await run(20_000)).toMatchObject({ result: 'replanned', depositId: deposit.id, paid: [], queuedBy: 'queued' });
    expect(await cancellations(wallet.address, oldMerchant!.authorization_nonce)).toBe(1);
    await fixture.waitForStatus(deposit.id, 'forwarded', 30_000);
    await waitFor(
      'every leg settled',
      async () => (await fixture.legsOf(deposit.id)).every((leg) => ['cancelled', 'confirmed'].includes(leg.status)),
      20_000,
    );
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_900_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect((await fixture.authorizationUses(wallet.address)).get(oldMerchant!.authorization_nonce)).toBeUndefined();
    // The old signature can never pay now.
    const { rows } = await fixture.db.pool.query<{ valid_before: string; signature: string }>(
      'SELECT valid_before::text, signature FROM payouts WHERE authorization_nonce = $1',
      [oldMerchant!.authorization_nonce],
    );
    const oldTransfer = encodeTransferWithAuthorization(
      {
        from: wallet.address,
        to: getAddress(oldMerchant!.to_address),
        value: BigInt(oldMerchant!.amount),
        validAfter: 0n,
        validBefore: BigInt(rows[0]!.valid_before),
        nonce: oldMerchant!.authorization_nonce as Hex,
      },
      splitSignature(rows[0]!.signature as Hex),
    );
    await expect(fixture.rpc.call({ account: anvilAccounts[2].address, to: fixture.token, data: oldTransfer })).rejects.toThrow(
      /authorization is used or canceled/,
    );
  });
});

async function cancellations(authorizer: Address, nonce: string): Promise<number> {
  const logs = await fixture.rpc.getContractEvents({
    address: fixture.token,
    abi: usdcAbi,
    eventName: 'AuthorizationCanceled',
    args: { authorizer, nonce: nonce as Hex },
    fromBlock: 0n,
    strict: true,
  });
  return logs.length;
}

function authorizationState(authorizer: Address, nonce: string): Promise<boolean> {
  return fixture.rpc.readContract({
    address: fixture.token,
    abi: usdcAbi,
    functionName: 'authorizationState',
    args: [authorizer, nonce as Hex],
  });
}
