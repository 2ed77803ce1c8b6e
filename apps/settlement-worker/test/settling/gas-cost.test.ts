import { waitFor } from '@gateway/testkit';
import { parseGwei } from 'viem';
import { relayerAccount, type SettlementFixture, USDC, type TestDeposit, settlementFixtureForFile } from '../support/settlement-fixture';
import { type CliRun, runGateway } from '@gateway/app-testkit';

jest.setTimeout(180_000);

// The POL price the worker is told (NATIVE_PRICE_USDC), in USDC base units per POL.
const POL_PRICE = 500_000n;
const WEI_PER_POL = 10n ** 18n;

let fixture: SettlementFixture;

settlementFixtureForFile('gas-cost', (started) => (fixture = started));

/** Gas as congested Polygon charges it: the next block's base fee at `gwei`, with a block mined so estimates see it. */
async function congest(gwei: string): Promise<void> {
  const testClient = fixture.testClient();
  await testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei(gwei) });
  await testClient.mine({ blocks: 1 });
}

/** The operator command, in the settlement worker's environment. */
function sweepDust(args: string[]): Promise<CliRun> {
  return runGateway(['dust', 'sweep', ...args], fixture.env({ NATIVE_PRICE_USDC: '0.50' }));
}

async function start(overrides: Record<string, string> = {}): Promise<void> {
  await fixture.startApp({ NATIVE_PRICE_USDC: '0.50', ...overrides });
}

/**
 * The deposit settled (held, or paid out with every leg confirmed); what the relayer spent on it, in
 * USDC at POL_PRICE, and what the platform earned.
 */
async function settle(deposit: TestDeposit): Promise<{ status: string; gasCostUsdc: bigint; platformEarned: bigint }> {
  const relayerBefore = await fixture.nativeBalance(relayerAccount.address);
  await fixture.enqueue(deposit.id);
  await waitFor(
    `deposit ${deposit.id} held or paid out`,
    async () => {
      const status = await fixture.depositStatus(deposit.id);
      return status === 'held' || (status === 'forwarded' && (await fixture.legsOf(deposit.id)).every((leg) => leg.status === 'confirmed'));
    },
    30_000,
  );
  const spentWei = relayerBefore - (await fixture.nativeBalance(relayerAccount.address));
  const platform = (await fixture.legsOf(deposit.id)).find((leg) => leg.leg === 'platform');
  return {
    status: await fixture.depositStatus(deposit.id),
    gasCostUsdc: (spentWei * POL_PRICE + WEI_PER_POL - 1n) / WEI_PER_POL,
    platformEarned: platform ? BigInt(platform.amount) : 0n,
  };
}

describe('a payout never costs the relayer more gas than the platform earns on it', () => {
  it('holds a deposit above DUST_THRESHOLD whose fee is worth less than its gas, and pays it with the next deposit that covers the gas', async () => {
    await start();
    const wallet = await fixture.createWallet();
    await congest('300');
    // 0.05 USDC, above the fixture's DUST_THRESHOLD (0.01): 1% earns 0.0005 USDC; two legs at ~300 gwei cost ~0.02 USDC.
    const small = await fixture.deposit(wallet, 50_000n);
    const first = await settle(small);
    expect(first.gasCostUsdc).toBeLessThanOrEqual(first.platformEarned);
    expect(first).toEqual({ status: 'held', gasCostUsdc: 0n, platformEarned: 0n });

    // 10 USDC more: 1% of the sum (0.1005 USDC) pays for the gas; the held deposit goes with it.
    await congest('300');
    const covering = await fixture.deposit(wallet, 10n * USDC);
    const second = await settle(covering);
    expect(second.status).toBe('forwarded');
    expect(second.platformEarned).toBe(100_500n);
    expect(second.gasCostUsdc).toBeGreaterThan(0n);
    expect(second.gasCostUsdc).toBeLessThanOrEqual(second.platformEarned);
    expect(await fixture.depositStatus(small.id)).toBe('swept');
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_949_500n);
  });

  it('pays it anyway when the operator opts in (PAYOUT_BELOW_GAS_COST=pay)', async () => {
    await start({ PAYOUT_BELOW_GAS_COST: 'pay' });
    const wallet = await fixture.createWallet();
    await congest('300');
    const small = await fixture.deposit(wallet, 50_000n);
    const settled = await settle(small);
    expect(settled.status).toBe('forwarded');
    expect(settled.gasCostUsdc).toBeGreaterThan(settled.platformEarned);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(49_500n);
  });

  it('gateway dust sweep weighs a wallet the same way: left held while its fee is worth less than the gas, paid with --force', async () => {
    await start();
    const wallet = await fixture.createWallet();
    await congest('300');
    const small = await fixture.deposit(wallet, 50_000n);
    expect((await settle(small)).status).toBe('held');

    await congest('300');
    const weighed = await sweepDust(['--wallet', wallet.address]);
    expect(weighed).toMatchObject({ code: 0 });
    expect(weighed.output).toMatch(
      /platform fee \(0\.0005 USDC\) is worth less than the payout's gas \(0\.0[0-9]+ USDC at today's gas price\): left held/,
    );
    expect(await fixture.depositStatus(small.id)).toBe('held');

    const forced = await sweepDust(['--wallet', wallet.address, '--force']);
    expect(forced).toMatchObject({ code: 0 });
    await fixture.waitForPaidOut(small.id);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(49_500n);
  });
});
