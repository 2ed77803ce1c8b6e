import { decodeFunctionData, type Hash } from 'viem';
import { usdcAbi } from '@gateway/chain';
import { RpcProxy, sleep, waitFor } from '@gateway/testkit';
import { type SettlementFixture, settlementFixtureForFile, USDC, type TestDeposit, type TestWallet } from '../support/settlement-fixture';

jest.setTimeout(180_000);

let fixture: SettlementFixture;

settlementFixtureForFile('faults', (started) => (fixture = started));

/** Balances, authorization uses and the callback row of a deposit paid exactly once (1% fee). */
async function expectPaidOnce(wallet: TestWallet, deposit: TestDeposit): Promise<void> {
  const fee = deposit.amount / 100n;
  expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(deposit.amount - fee);
  expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
  expect(await fixture.nativeBalance(wallet.address)).toBe(0n);
  const uses = await fixture.authorizationUses(wallet.address);
  const legs = await fixture.legsOf(deposit.id);
  for (const leg of legs) expect(uses.get(leg.authorization_nonce)).toBe(1);
  expect(uses.size).toBe(legs.length);
  expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
}

describe('RPC failures', () => {
  let proxy: RpcProxy;

  beforeAll(async () => {
    proxy = await RpcProxy.start(fixture.anvil.rpcUrl);
  });

  afterAll(async () => {
    await proxy?.close();
  });

  it('a broadcast whose answer is lost, then the RPC down for a while: retries, finds the mined transaction, pays once', async () => {
    await fixture.startApp({ CHAIN_RPC_URL: proxy.url });
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 12n * USDC);
    proxy.mode = 'lose-next-send';
    await fixture.enqueue(deposit.id);

    // The merchant transfer reached the chain, but the worker only saw a 502, then nothing.
    await waitFor('the lost broadcast', async () => proxy.lostSends === 1, 20_000);
    await waitFor('the worker to retry against the dead RPC', async () => proxy.refused >= 3, 20_000);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(11_880_000n);
    expect(await fixture.depositStatus(deposit.id)).toBe('forwarding');
    expect(await fixture.metric('settlement_chain_errors_total')).toBeGreaterThanOrEqual(1);

    proxy.mode = 'pass';
    await fixture.waitForPaidOut(deposit.id, 60_000);
    await expectPaidOnce(wallet, deposit);
    // The merchant leg's one recorded transaction is the one that paid: no second send under a new nonce.
    const transactions = await fixture.transactionsOf(deposit.id);
    expect(transactions.map((t) => [t.leg, t.reason, t.status])).toEqual([
      ['merchant', 'initial', 'mined'],
      ['platform', 'initial', 'mined'],
    ]);
  });
});

describe('transactions that do not get mined', () => {
  it('replaces a stuck transaction with the same relayer nonce and a higher fee, the one at the head of the relayer queue first', async () => {
    await fixture.startApp({ STUCK_TX_TIMEOUT_MS: '1000' });
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 8n * USDC);
    await fixture.testClient().setAutomine(false);
    await fixture.enqueue(deposit.id);

    const bumped = async (leg: string) =>
      (await fixture.transactionsOf(deposit.id)).some((t) => t.leg === leg && t.reason === 'fee-bump' && t.status === 'sent');
    await waitFor('the merchant leg to be replaced', () => bumped('merchant'), 20_000);
    // The platform leg's transaction waits behind the merchant's (next relayer nonce): raising
    // its fee could not get it mined sooner, so it is left alone.
    await sleep(1_500);
    expect(await bumped('platform')).toBe(false);

    await fixture.testClient().setAutomine(true);
    await fixture.testClient().mine({ blocks: 1 });
    await fixture.waitForPaidOut(deposit.id, 30_000);

    await expectPaidOnce(wallet, deposit);
    const transactions = await fixture.transactionsOf(deposit.id);
    const merchant = transactions.filter((t) => t.leg === 'merchant');
    // Every transaction of the leg shares one relayer nonce; exactly one of them was mined, a replacement.
    expect(new Set(merchant.map((t) => t.relayer_nonce)).size).toBe(1);
    expect(merchant[0]).toMatchObject({ reason: 'initial', status: 'replaced' });
    expect(merchant.filter((t) => t.status === 'mined')).toEqual([expect.objectContaining({ reason: 'fee-bump' })]);
    const { rows } = await fixture.db.pool.query<{ tx_hash: string }>(
      `SELECT tx_hash FROM payouts WHERE deposit_id = $1 AND leg = 'merchant'`,
      [deposit.id],
    );
    expect(merchant.find((t) => t.status === 'mined')?.tx_hash).toBe(rows[0]!.tx_hash);
  });

  it('sends a dropped transaction again, byte for byte', async () => {
    const { wallet, deposit } = await fixture.sendUnmined(6n * USDC);
    const client = fixture.testClient();
    await fixture.waitForSent(deposit.id);
    const [merchant] = await fixture.transactionsOf(deposit.id);
    const hash = merchant!.tx_hash as Hash;
    await client.dropTransaction({ hash });
    await waitFor(
      'the dropped transaction to be back in the pool',
      async () =>
        fixture.rpc.getTransaction({ hash }).then(
          () => true,
          () => false,
        ),
      20_000,
    );
    // The counter moves once the broadcast call returns, a moment after the node has the transaction.
    await waitFor(
      'the rebroadcast to be counted',
      async () => (await fixture.metric('settlement_relayer_transactions_total', 'kind="rebroadcast"')) >= 1,
      5_000,
    );

    await client.setAutomine(true);
    await client.mine({ blocks: 1 });
    await fixture.waitForPaidOut(deposit.id, 30_000);
    await expectPaidOnce(wallet, deposit);
    expect((await fixture.transactionsOf(deposit.id)).map((t) => [t.leg, t.reason, t.status])).toEqual([
      ['merchant', 'initial', 'mined'],
      ['platform', 'initial', 'mined'],
    ]);
  });

  it('after a transaction reverts (authorization expired), renews the signature with the same nonce and sends under a new relayer nonce', async () => {
    const { wallet, deposit } = await fixture.sendUnmined(4n * USDC, { AUTHORIZATION_VALIDITY_SECONDS: '600' });
    const client = fixture.testClient();
    await fixture.waitForSent(deposit.id);
    const noncesBefore = (await fixture.legsOf(deposit.id)).map((leg) => leg.authorization_nonce);

    // Mine them an hour later: both authorizations have expired, both transactions revert.
    const { timestamp } = await fixture.rpc.getBlock();
    await client.setNextBlockTimestamp({ timestamp: timestamp + 3_600n });
    await client.mine({ blocks: 1 });
    await client.setAutomine(true);

    // The renewed transactions, read from the chain as sent: each carries its leg's own nonce and
    // a later validBefore, and paying them used exactly those nonces, once, and moved the money.
    // Checked before waiting for the deposit to settle, so a renewal under any other nonce fails
    // here, saying which nonce it carried, rather than as a timeout.
    const legs = await fixture.legsOf(deposit.id);
    const renewals = async () => (await fixture.transactionsOf(deposit.id)).filter((t) => t.reason === 'new-nonce');
    await waitFor('both legs to be sent again', async () => (await renewals()).length === legs.length, 20_000);
    for (const renewal of await renewals()) {
      const receipt = await fixture.rpc.waitForTransactionReceipt({ hash: renewal.tx_hash as Hash, timeout: 10_000 });
      expect(receipt.status).toBe('success');
      const sent = await fixture.rpc.getTransaction({ hash: renewal.tx_hash as Hash });
      expect(sent.to?.toLowerCase()).toBe(fixture.token.toLowerCase());
      const call = decodeFunctionData({ abi: usdcAbi, data: sent.input });
      expect(call.functionName).toBe('transferWithAuthorization');
      if (call.functionName !== 'transferWithAuthorization') return;
      const [, , , , validBefore, nonce] = call.args;
      const leg = legs.find((candidate) => candidate.leg === renewal.leg)!;
      expect({ leg: renewal.leg, nonce: nonce.toLowerCase() }).toEqual({ leg: renewal.leg, nonce: leg.authorization_nonce.toLowerCase() });
      expect(validBefore).toBeGreaterThan(timestamp + 3_600n);
    }
    const uses = await fixture.authorizationUses(wallet.address);
    expect(Object.fromEntries(uses)).toEqual(Object.fromEntries(legs.map((leg) => [leg.authorization_nonce.toLowerCase(), 1])));
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(deposit.amount - deposit.amount / 100n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);

    await fixture.waitForPaidOut(deposit.id, 30_000);
    await expectPaidOnce(wallet, deposit);
    expect((await fixture.legsOf(deposit.id)).map((leg) => leg.authorization_nonce)).toEqual(noncesBefore);
    const transactions = await fixture.transactionsOf(deposit.id);
    expect(transactions.map((t) => [t.leg, t.reason, t.status])).toEqual([
      ['merchant', 'initial', 'reverted'],
      ['platform', 'initial', 'reverted'],
      ['merchant', 'new-nonce', 'mined'],
      ['platform', 'new-nonce', 'mined'],
    ]);
    expect(new Set(transactions.map((t) => t.relayer_nonce)).size).toBe(4);
  });
});
