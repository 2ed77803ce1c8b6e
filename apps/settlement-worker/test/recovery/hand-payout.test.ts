import { createWalletClient, erc20Abi, http, parseEther, type Address, type Hash } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { defineLocalChain, PUBLIC_TEST_MNEMONIC } from '@gateway/chain';
import { anvilAccounts, type RpcProxy } from '@gateway/testkit';
import { type CliRun, runGateway } from '@gateway/app-testkit';
import { ensureLiveSettlementJob } from '@gateway/queue';
import { SettlementRepository } from '@gateway/db/settlement-worker';
import {
  freshAddress,
  type SettlementFixture,
  settlementFixtureWithProxyForFile,
  type TestWallet,
  USDC,
} from '../support/settlement-fixture';

// Pay out by hand (docs/runbooks.md): a deposit of the other USDC (a second TestUSDC here) is held for
// the operator; the operator sends it from the temporary wallet with the wallet's own key, and
// `gateway deposits paid-by-hand` (as a process, the settlement worker's environment) records it only
// once the chain shows that transfer, final, from that wallet to its payout address, of the merchant's
// share or the whole deposit; then settlement leaves it alone and it is no longer counted as held.

// Each command is a process of its own (about ten of them in the first test).
jest.setTimeout(300_000);

let fixture: SettlementFixture;
let proxy: RpcProxy;
settlementFixtureWithProxyForFile('hand_payout', (started, startedProxy) => {
  fixture = started;
  proxy = startedProxy;
});

let other: Address;
beforeAll(async () => {
  other = await fixture.deploySecondToken();
});

/** The command in the worker's environment, its node behind the proxy (whose finalized tag a test holds back). */
function paidByHand(args: string[]): Promise<CliRun> {
  return runGateway(['deposits', 'paid-by-hand', ...args], fixture.env({ CHAIN_RPC_URL: proxy.url, OTHER_USDC_TOKEN_ADDRESS: other }));
}

/** A deposit of the other token, held for the operator as the worker holds it (other-usdc.test.ts runs that move). */
async function heldDeposit(wallet: TestWallet, amount: bigint) {
  const deposit = await fixture.deposit(wallet, amount, other);
  expect(await new SettlementRepository(fixture.db.appPool('settlement-worker')).holdOtherToken(deposit.id)).toBe(true);
  return deposit;
}

const walletClient = (privateKeyOrIndex: Hash | number) =>
  createWalletClient({
    account:
      typeof privateKeyOrIndex === 'number'
        ? mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: privateKeyOrIndex })
        : privateKeyToAccount(privateKeyOrIndex),
    chain: defineLocalChain(fixture.anvil),
    transport: http(fixture.anvil.rpcUrl, { retryCount: 0 }),
  });

/** What an operator does by hand: gas for the temporary wallet, then a transfer signed with its key. */
async function sendFromTemporaryWallet(wallet: TestWallet, to: Address, amount: bigint): Promise<Hash> {
  const funder = walletClient(anvilAccounts[2].privateKey);
  await fixture.rpc.waitForTransactionReceipt({
    hash: await funder.sendTransaction({ to: wallet.address, value: parseEther('0.01') }),
  });
  const temporary = walletClient(wallet.hdIndex);
  const hash = await temporary.writeContract({ address: other, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  await fixture.rpc.waitForTransactionReceipt({ hash });
  return hash;
}

async function operatorPayouts(depositId: string) {
  const { rows } = await fixture.db.pool.query(
    `SELECT tx_hash, token, from_address, to_address, amount::text, paid FROM operator_payouts WHERE deposit_id = $1`,
    [depositId],
  );
  return rows;
}

it("records the merchant's share paid by hand only once the chain shows it final, from the wallet to its payout address", async () => {
  // 12 USDC.e at 1 %: the merchant's share is 11.88.
  const wallet = await fixture.createWallet();
  const deposit = await heldDeposit(wallet, 12n * USDC);

  const listed = await paidByHand(['--list']);
  expect(listed).toMatchObject({ code: 0, stderr: '' });
  expect(listed.stdout).toContain(`deposit ${deposit.id}  12 of token ${other.toLowerCase()}`);
  expect(listed.stdout).toContain(`wallet ${wallet.address.toLowerCase()} (hd_index ${wallet.hdIndex})`);
  expect(listed.stdout).toContain(`payout ${wallet.payoutAddress.toLowerCase()}  merchant's share 11.88`);

  // Transfers that are not its payout, each refused with its reason, nothing recorded.
  const stranger = freshAddress();
  const toStranger = await sendFromTemporaryWallet(wallet, stranger, 10_000n);
  const tooLittle = await sendFromTemporaryWallet(wallet, wallet.payoutAddress, 20_000n);
  const minter = walletClient(anvilAccounts[0].privateKey);
  const notOurs = await minter.writeContract({
    address: other,
    abi: erc20Abi,
    functionName: 'transfer',
    args: [wallet.payoutAddress, 0n],
  });
  await fixture.rpc.waitForTransactionReceipt({ hash: notOurs });
  for (const [hash, reason] of [
    [toStranger, `it pays ${stranger.toLowerCase()}, not the wallet's payout address ${wallet.payoutAddress.toLowerCase()}`],
    [tooLittle, "it pays 0.02 to the payout address, neither the merchant's share (11.88) nor the whole deposit (12)"],
    [notOurs, `no transfer of ${other.toLowerCase()} in it comes from the deposit's temporary wallet ${wallet.address.toLowerCase()}`],
    [deposit.txHash, `no transfer of ${other.toLowerCase()} in it comes from the deposit's temporary wallet`],
  ] as const) {
    const refused = await paidByHand([deposit.id, '--tx', hash]);
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 1, stderr: expect.stringContaining(reason) });
  }
  const unknown = await paidByHand([deposit.id, '--tx', `0x${'ab'.repeat(32)}`]);
  expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('knows no mined transaction') });
  expect(await operatorPayouts(deposit.id)).toEqual([]);
  expect(await fixture.depositStatus(deposit.id)).toBe('held_for_operator');

  // The right transfer, not final yet: refused until it is.
  proxy.finalizedTag = { stalledAt: await fixture.rpc.getBlockNumber() };
  const payout = await sendFromTemporaryWallet(wallet, wallet.payoutAddress, 11_880_000n);
  const early = await paidByHand([deposit.id, '--tx', payout]);
  expect(early).toMatchObject({ code: 1, stderr: expect.stringContaining('is not final yet; run this again later') });
  expect(await fixture.depositStatus(deposit.id)).toBe('held_for_operator');

  proxy.finalizedTag = 'pass';
  const recorded = await paidByHand([deposit.id, '--tx', payout.toUpperCase().replace('0X', '0x'), '--json']);
  expect(recorded).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(recorded.stdout)).toMatchObject({
    depositId: deposit.id,
    result: 'recorded',
    status: 'paid_by_operator',
    txHash: payout,
    amount: '11880000',
    paid: 'merchant_share',
  });
  expect(await fixture.depositStatus(deposit.id)).toBe('paid_by_operator');
  expect(await operatorPayouts(deposit.id)).toEqual([
    {
      tx_hash: payout,
      token: other.toLowerCase(),
      from_address: wallet.address.toLowerCase(),
      to_address: wallet.payoutAddress.toLowerCase(),
      amount: '11880000',
      paid: 'merchant_share',
    },
  ]);
  expect(await fixture.usdcBalance(wallet.payoutAddress, other)).toBe(11_880_000n + 20_000n);

  // Once only, and settlement leaves it alone: no leg, no callback, not counted as held any more.
  const again = await paidByHand([deposit.id, '--tx', payout]);
  expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('is paid_by_operator, not held_for_operator') });
  expect((await paidByHand(['--list'])).stdout).not.toContain(`deposit ${deposit.id} `);
  const app = await fixture.startApp({ OTHER_USDC_TOKEN_ADDRESS: other });
  expect(await ensureLiveSettlementJob(fixture.settlementQueue, deposit.id)).toBe('enqueued');
  await app.settlementReconciler.reconcile();
  expect(await fixture.metric('settlement_other_token_held_deposits')).toBe(0);
  expect(await fixture.depositStatus(deposit.id)).toBe('paid_by_operator');
  expect(await fixture.legsOf(deposit.id)).toEqual([]);
  expect(await fixture.deliveryOf(deposit.id)).toEqual([]);

  // Its story, found by the payout's transaction, tells it.
  const story = await runGateway(['story', payout], fixture.env());
  expect(story).toMatchObject({ code: 0, stderr: '' });
  expect(story.stdout).toContain(`deposit ${deposit.id}`);
  expect(story.stdout).toContain('held for the operator (a token this gateway does not settle)');
  expect(story.stdout).toContain(`paid by hand: 11.88 USDC (the merchant's share) to ${wallet.payoutAddress.toLowerCase()}, tx ${payout}`);
});

it('takes the whole deposit too, and a transfer pays one deposit only', async () => {
  const wallet = await fixture.createWallet();
  const first = await heldDeposit(wallet, 3n * USDC);
  const second = await heldDeposit(wallet, 3n * USDC);
  const payout = await sendFromTemporaryWallet(wallet, wallet.payoutAddress, 3n * USDC);
  expect(await paidByHand([first.id, '--tx', payout])).toMatchObject({
    code: 0,
    stdout: `deposit ${first.id} paid_by_operator: 3 (the whole deposit) to ${wallet.payoutAddress.toLowerCase()} in ${payout} (log 0, block ${
      (await fixture.rpc.getTransactionReceipt({ hash: payout })).blockNumber
    })\n`,
  });
  const taken = await paidByHand([second.id, '--tx', payout]);
  expect(taken).toMatchObject({ code: 1, stderr: expect.stringContaining(`transfer is already recorded for deposit ${first.id}`) });
  expect(await fixture.depositStatus(second.id)).toBe('held_for_operator');
});

it('refuses bad arguments with the usage, and a deposit that is not held', async () => {
  expect(await paidByHand([])).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: gateway deposits paid-by-hand') });
  expect(await paidByHand(['12'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--tx <transaction hash>') });
  expect(await paidByHand(['12', '--tx', '0x12'])).toMatchObject({ code: 2, stderr: expect.stringContaining('is not a transaction hash') });
  expect(await paidByHand(['--list', '12'])).toMatchObject({ code: 2 });
  const wallet = await fixture.createWallet();
  const settled = await fixture.deposit(wallet, 2n * USDC);
  expect(await paidByHand([settled.id, '--tx', settled.txHash])).toMatchObject({
    code: 1,
    stderr: expect.stringContaining(`deposit ${settled.id} is final, not held_for_operator`),
  });
});
