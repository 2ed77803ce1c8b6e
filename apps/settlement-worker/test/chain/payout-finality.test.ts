import type { FastifyInstance } from 'fastify';
import { sleep } from '@gateway/testkit';
import { type SettlementFixture, settlementFixtureWithProxyForFile, USDC, type TestDeposit } from '../support/settlement-fixture';
import type { RpcProxy } from '@gateway/testkit';

jest.setTimeout(120_000);

let fixture: SettlementFixture;
let proxy: RpcProxy;

settlementFixtureWithProxyForFile('payout_finality', (started, node) => ([fixture, proxy] = [started, node]));

function startApp(overrides: Record<string, string>): Promise<FastifyInstance> {
  return fixture.startApp({ CHAIN_RPC_URL: proxy.url, ...overrides });
}

const unconfirmedLegs = async (deposit: TestDeposit) =>
  (await fixture.legsOf(deposit.id)).filter((leg) => leg.status !== 'confirmed').length;

describe('payout legs on a node that serves the finalized tag', () => {
  it('stay unconfirmed while the finalized block has not reached them, however deep they are', async () => {
    proxy.finalizedTag = { stalledAt: await fixture.rpc.getBlockNumber() };
    await startApp({ CONFIRMATIONS: '3' });
    // Decided at boot, before any payout.
    expect(await fixture.metric('chain_finality_mode', 'mode="finalized"')).toBe(1);
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 5n * USDC);
    await fixture.enqueue(deposit.id);
    await fixture.bothLegsMined(deposit.id);

    await fixture.testClient().mine({ blocks: 100 });
    await sleep(1_500);
    expect(await unconfirmedLegs(deposit)).toBe(2);
    expect(await fixture.depositStatus(deposit.id)).toBe('forwarding');
    expect(await fixture.deliveryOf(deposit.id)).toEqual([]);
    expect(await fixture.metric('chain_finality_mode', 'mode="finalized"')).toBe(1);
    expect(await fixture.metric('chain_finality_lag_blocks')).toBeGreaterThanOrEqual(100);

    // Finality moves on (this anvil finalizes each block at once).
    proxy.finalizedTag = 'pass';
    await fixture.waitForPaidOut(deposit.id);
  });
});

describe('payout legs on a node without the finalized tag', () => {
  it('fall back to CONFIRMATIONS depth', async () => {
    proxy.finalizedTag = 'refuse';
    await startApp({ CONFIRMATIONS: '3' });
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 3n * USDC);
    await fixture.enqueue(deposit.id);
    await fixture.bothLegsMined(deposit.id);

    await sleep(1_000);
    expect(await fixture.depositStatus(deposit.id)).toBe('forwarding');
    await fixture.testClient().mine({ blocks: 3 });
    await fixture.waitForPaidOut(deposit.id);
    expect(await fixture.metric('chain_finality_mode', 'mode="depth"')).toBe(1);
  });
});
