import { createWalletClient, encodeFunctionData, http, type Hex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import {
  defineLocalChain,
  encodeCancelAuthorization,
  encodeTransferWithAuthorization,
  randomAuthorizationNonce,
  readTokenDomain,
  setTestUsdcBlacklisted,
  setTestUsdcPaused,
  signCancelAuthorization,
  signTransferAuthorization,
  testUsdcAdminAbi,
  PUBLIC_TEST_MNEMONIC,
} from '@gateway/chain';
import { anvilAccounts, sleep, waitFor } from '@gateway/testkit';
import { freshAddress, type SettlementFixture, settlementFixtureForFile, USDC, type TestWallet } from '../support/settlement-fixture';

jest.setTimeout(180_000);

// Not the relayer (accounts[1]) and not the token's deployer (accounts[0]): someone else, with gas.
const outsider = anvilAccounts[2].privateKey;

let fixture: SettlementFixture;

settlementFixtureForFile('attention', (started) => (fixture = started));

// Each test starts with an empty queue: a deposit an earlier test left stuck must not hold a worker slot.
afterEach(() => fixture.settlementQueue.obliterate({ force: true }));

async function attentionOf(depositId: string) {
  const { rows } = await fixture.db.pool.query<{ status: string; attention_reason: string | null; attention_detail: string | null }>(
    'SELECT status, attention_reason, attention_detail FROM deposits WHERE id = $1',
    [depositId],
  );
  return rows[0]!;
}

async function legAttention(depositId: string) {
  const { rows } = await fixture.db.pool.query<{ leg: string; status: string; attention_reason: string | null }>(
    'SELECT leg, status, attention_reason FROM payouts WHERE deposit_id = $1 ORDER BY id',
    [depositId],
  );
  return rows;
}

/** The temporary wallet's key, as anyone holding the settlement seed has it. */
function temporaryKey(wallet: TestWallet) {
  return mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: wallet.hdIndex });
}

const clientOf = (key: Hex) =>
  createWalletClient({
    account: privateKeyToAccount(key),
    chain: defineLocalChain(fixture.anvil),
    transport: http(fixture.anvil.rpcUrl, { retryCount: 0 }),
  });

/** Puts a transaction in the pool with a tip far above the relayer's, so the next block mines it first. */
async function sendAhead(key: Hex, data: Hex): Promise<void> {
  // A fixed gas limit: estimating would run against the pending block, which already holds the payout.
  await clientOf(key).sendTransaction({
    to: fixture.token,
    data,
    gas: 200_000n,
    maxPriorityFeePerGas: 50_000_000_000n,
    maxFeePerGas: 100_000_000_000n,
  });
}

/** Moves `amount` out of the temporary wallet with its own key (an EIP-3009 transfer an outsider relays). */
async function drainTemporaryWallet(wallet: TestWallet, amount: bigint): Promise<void> {
  const domain = await readTokenDomain(fixture.rpc, fixture.token);
  const { timestamp } = await fixture.rpc.getBlock();
  const authorization = {
    from: wallet.address,
    to: freshAddress(),
    value: amount,
    validAfter: 0n,
    validBefore: timestamp + 3_600n,
    nonce: randomAuthorizationNonce(),
  };
  const data = encodeTransferWithAuthorization(authorization, await signTransferAuthorization(temporaryKey(wallet), domain, authorization));
  const hash = await clientOf(outsider).sendTransaction({ to: fixture.token, data });
  expect((await fixture.rpc.waitForTransactionReceipt({ hash })).status).toBe('success');
}

async function expectNothingSentFor(depositId: string, leg: string): Promise<void> {
  const sent = (await fixture.transactionsOf(depositId)).filter((t) => t.leg === leg && t.status !== 'reverted');
  expect(sent).toEqual([]);
}

/** A few more polling rounds, so a test can check nothing else happens. */
const settle = () => sleep(1_000);

describe('a leg the token will refuse however often it is sent', () => {
  it('merchant payout address blacklisted: leg and deposit need attention (payout_address_blacklisted), nothing sent, counted', async () => {
    const { wallet, deposit } = await fixture.payoutAddressBlocked(10n * USDC);
    expect(await attentionOf(deposit.id)).toEqual({
      status: 'needs_attention',
      attention_reason: 'payout_address_blacklisted',
      attention_detail: 'Blacklistable: account is blacklisted',
    });
    expect((await legAttention(deposit.id)).find((leg) => leg.leg === 'merchant')).toEqual({
      leg: 'merchant',
      status: 'needs_attention',
      attention_reason: 'payout_address_blacklisted',
    });
    await settle();
    await expectNothingSentFor(deposit.id, 'merchant');
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(0n);
    expect(await fixture.deliveryOf(deposit.id)).toEqual([]);
    expect(await fixture.metric('settlement_needs_attention_total', 'reason="payout_address_blacklisted"')).toBe(1);
  });

  it('payout blacklisted after the transaction was sent (mined and reverted): needs attention, no second transaction', async () => {
    const { wallet, deposit } = await fixture.sendUnmined(7n * USDC);
    const client = fixture.testClient();
    await fixture.waitForSent(deposit.id, ['merchant']);

    // The blacklister's transaction pays a higher tip than the relayer's: mined first, in the same block.
    await sendAhead(
      anvilAccounts[0].privateKey,
      encodeFunctionData({ abi: testUsdcAdminAbi, functionName: 'blacklist', args: [wallet.payoutAddress] }),
    );
    await client.mine({ blocks: 1 });
    await client.setAutomine(true);

    await fixture.waitForStatus(deposit.id, 'needs_attention', 20_000);
    expect((await attentionOf(deposit.id)).attention_reason).toBe('payout_address_blacklisted');
    await settle();
    expect((await fixture.transactionsOf(deposit.id)).filter((t) => t.leg === 'merchant').map((t) => [t.reason, t.status])).toEqual([
      ['initial', 'reverted'],
    ]);
  });

  it('platform fee address blacklisted: the fee leg needs attention (fee_address_blacklisted); the merchant is paid and called back', async () => {
    const { wallet, deposit } = await fixture.forwardedWithFeeLegBlocked(5n * USDC);
    expect(await legAttention(deposit.id)).toEqual([
      { leg: 'merchant', status: 'confirmed', attention_reason: null },
      { leg: 'platform', status: 'needs_attention', attention_reason: 'fee_address_blacklisted' },
    ]);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(4_950_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(50_000n);
    expect(await fixture.deliveryOf(deposit.id)).toEqual([expect.objectContaining({ value_forwarded_coin: '4950000', fee_coin: '50000' })]);
    expect(await fixture.metric('settlement_needs_attention_total', 'reason="fee_address_blacklisted"')).toBe(1);
  });

  it('temporary wallet blacklisted: needs attention (temporary_wallet_blacklisted)', async () => {
    await fixture.startApp();
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 3n * USDC);
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.address, true);
    await fixture.enqueue(deposit.id);

    await fixture.waitForStatus(deposit.id, 'needs_attention', 20_000);
    expect((await attentionOf(deposit.id)).attention_reason).toBe('temporary_wallet_blacklisted');
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.address, false);
  });

  it('authorization cancelled by someone holding the wallet key before it was mined: needs attention (authorization_cancelled)', async () => {
    const { wallet, deposit } = await fixture.sendUnmined(6n * USDC);
    const client = fixture.testClient();
    await fixture.waitForSent(deposit.id, ['merchant']);
    const merchantLeg = (await fixture.legsOf(deposit.id)).find((leg) => leg.leg === 'merchant')!;
    const nonce = merchantLeg.authorization_nonce as Hex;
    const domain = await readTokenDomain(fixture.rpc, fixture.token);
    const cancel = encodeCancelAuthorization(
      wallet.address,
      nonce,
      await signCancelAuthorization(temporaryKey(wallet), domain, wallet.address, nonce),
    );
    await sendAhead(outsider, cancel);
    await client.mine({ blocks: 1 });
    await client.setAutomine(true);

    await fixture.waitForStatus(deposit.id, 'needs_attention', 20_000);
    expect((await attentionOf(deposit.id)).attention_reason).toBe('authorization_cancelled');
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(0n);
  });

  it('temporary wallet emptied by someone holding its key: needs attention (insufficient_balance)', async () => {
    await fixture.startApp();
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 9n * USDC);
    await drainTemporaryWallet(wallet, 5n * USDC);
    await fixture.enqueue(deposit.id);

    await fixture.waitForStatus(deposit.id, 'needs_attention', 20_000);
    expect(await attentionOf(deposit.id)).toEqual({
      status: 'needs_attention',
      attention_reason: 'insufficient_balance',
      attention_detail: 'ERC20: transfer amount exceeds balance',
    });
    await settle();
    await expectNothingSentFor(deposit.id, 'merchant');
  });
});

describe('a paused token (an incident that ends): waited out, not parked', () => {
  it('sends nothing while the token is paused, counts the wait, and forwards once it is unpaused', async () => {
    await fixture.startApp();
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 4n * USDC);
    await setTestUsdcPaused(fixture.tokenAdmin, true);
    try {
      await fixture.enqueue(deposit.id);
      await waitFor(
        'the pause to be noticed',
        async () => (await fixture.metric('settlement_payout_leg_waits_total', 'reason="token_paused"')) >= 1,
        20_000,
      );
      await settle();
      expect(await fixture.depositStatus(deposit.id)).toBe('forwarding');
      expect(await fixture.transactionsOf(deposit.id)).toEqual([]);
      expect((await legAttention(deposit.id)).map((leg) => leg.status)).not.toContain('needs_attention');
    } finally {
      await setTestUsdcPaused(fixture.tokenAdmin, false);
    }

    await fixture.waitForStatus(deposit.id, 'forwarded', 60_000);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(3_960_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
  });
});
