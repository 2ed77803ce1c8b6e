import type { Hash } from 'viem';
import {
  ASSUMED_NATIVE_PRICE_USDC,
  ASSUMED_RELAY_GAS_PRICE_WEI,
  DEFAULT_DUST_THRESHOLD,
  PAYOUT_RELAY_GAS,
  relayCostInUsdc,
} from '@gateway/domain';
import {
  freshAddress,
  type SettlementFixture,
  settlementAppForFile,
  USDC,
  type TestDeposit,
  type TestWallet,
} from '../support/settlement-fixture';
import { type CliRun, runGateway } from '@gateway/app-testkit';

jest.setTimeout(180_000);

let fixture: SettlementFixture;
// These tests are about DUST_THRESHOLD alone: at anvil's gas price a payout of a cent or so earns
// less than its gas, which gas-cost.test.ts holds. Here the operator pays such payouts.
const PAY_BELOW_GAS_COST = { PAYOUT_BELOW_GAS_COST: 'pay' };

// The fixture's DUST_THRESHOLD is 10000 (0.01 USDC).
settlementAppForFile('dust', (started) => (fixture = started), PAY_BELOW_GAS_COST);

async function heldDust(wallet: TestWallet, amount: bigint): Promise<TestDeposit> {
  const deposit = await fixture.deposit(wallet, amount);
  await fixture.enqueue(deposit.id);
  await fixture.waitForStatus(deposit.id, 'held');
  return deposit;
}

async function sweptBy(depositId: string): Promise<string | null> {
  const { rows } = await fixture.db.pool.query<{ carrier: string | null }>(
    'SELECT swept_by_deposit_id::text AS carrier FROM deposits WHERE id = $1',
    [depositId],
  );
  return rows[0]!.carrier;
}

/** Runs the operator command as an operator would, in the settlement worker's environment. */
function sweepDust(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runGateway(['dust', 'sweep', ...args], fixture.env({ ...PAY_BELOW_GAS_COST, ...env }));
}

describe('dust', () => {
  // First in the file: the fixture's platform fee address holds no USDC yet, so every leg pays for a new balance slot.
  it('the default DUST_THRESHOLD rests on the gas the costliest payout really uses: three legs to new recipients', async () => {
    const wallet = await fixture.createWallet({ affiliate: { address: freshAddress(), bps: 50 } });
    const deposit = await fixture.depositPaidOut(wallet, 10n * USDC);

    const mined = (await fixture.transactionsOf(deposit.id)).filter((transaction) => transaction.status === 'mined');
    expect(mined.map((transaction) => transaction.leg).sort()).toEqual(['affiliate', 'merchant', 'platform']);
    let gas = 0n;
    for (const transaction of mined) gas += (await fixture.rpc.getTransactionReceipt({ hash: transaction.tx_hash as Hash })).gasUsed;
    // PAYOUT_RELAY_GAS (dust-policy in @gateway/domain) is what bench:gas measured; the default threshold is its cost at the stated prices.
    expect(gas).toBeLessThanOrEqual(PAYOUT_RELAY_GAS);
    expect(gas).toBeGreaterThan((PAYOUT_RELAY_GAS * 9n) / 10n);
    expect(DEFAULT_DUST_THRESHOLD).toBeGreaterThanOrEqual(relayCostInUsdc(gas, ASSUMED_RELAY_GAS_PRICE_WEI, ASSUMED_NATIVE_PRICE_USDC));
  });

  it('sweeps held dust together with the next deposit into the wallet: one payout of the sum, split exactly, the dust marked swept', async () => {
    const wallet = await fixture.createWallet();
    const dust = await heldDust(wallet, 4_000n);
    const feeBefore = await fixture.usdcBalance(fixture.platformFeeAddress);

    const next = await fixture.deposit(wallet, 10n * USDC);
    await fixture.enqueue(next.id);
    await fixture.waitForStatus(next.id, 'forwarded');

    // 10.004 USDC at 1%: fee floor(100040) = 100040, the merchant the rest.
    const legs = await fixture.legsOf(next.id);
    expect(legs.map((leg) => [leg.leg, leg.to_address, leg.amount, leg.status])).toEqual([
      ['merchant', wallet.payoutAddress.toLowerCase(), '9903960', 'confirmed'],
      ['platform', fixture.platformFeeAddress.toLowerCase(), '100040', 'confirmed'],
    ]);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_903_960n);
    expect((await fixture.usdcBalance(fixture.platformFeeAddress)) - feeBefore).toBe(100_040n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);

    expect(await fixture.depositStatus(dust.id)).toBe('swept');
    expect(await sweptBy(dust.id)).toBe(next.id);
    expect(await fixture.legsOf(dust.id)).toEqual([]);
    // One callback, for what arrived: both deposits, all of it forwarded.
    expect(await fixture.deliveryOf(dust.id)).toEqual([]);
    expect(await fixture.deliveryOf(next.id)).toEqual([
      expect.objectContaining({ value_coin: '10004000', value_forwarded_coin: '9903960', fee_coin: '100040', txid_in: next.txHash }),
    ]);
  });

  it('holds a second dust deposit while the sum is still dust, and pays both with the deposit that lifts it over the threshold', async () => {
    const wallet = await fixture.createWallet();
    const first = await heldDust(wallet, 3_000n);
    const second = await heldDust(wallet, 4_000n);
    expect(await fixture.depositStatus(first.id)).toBe('held');

    const third = await fixture.deposit(wallet, 5_000n);
    await fixture.enqueue(third.id);
    await fixture.waitForStatus(third.id, 'forwarded');

    expect((await fixture.legsOf(third.id)).map((leg) => [leg.leg, leg.amount])).toEqual([
      ['merchant', '11880'],
      ['platform', '120'],
    ]);
    expect(await sweptBy(first.id)).toBe(third.id);
    expect(await sweptBy(second.id)).toBe(third.id);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
  });

  it('gateway dust sweep pays held dust on demand: every wallet whose dust sums to the threshold, and a smaller sum only with --force', async () => {
    const enough = await fixture.createWallet();
    const older = await heldDust(enough, 6_000n);
    const newer = await heldDust(enough, 3_000n);
    const little = await fixture.createWallet();
    const lone = await heldDust(little, 3_000n);

    // Held dust never sums to the threshold on its own (the deposit that lifts it pays it), but it
    // does once the operator lowers DUST_THRESHOLD: here to 0.008 USDC.
    const all = await sweepDust(['--all'], { DUST_THRESHOLD: '8000' });
    expect(all.code).toBe(0);
    // The newest held deposit carries the payout of its wallet's dust.
    await fixture.waitForStatus(newer.id, 'forwarded');
    expect(await fixture.depositStatus(older.id)).toBe('swept');
    expect(await sweptBy(older.id)).toBe(newer.id);
    expect((await fixture.legsOf(newer.id)).map((leg) => [leg.leg, leg.amount])).toEqual([
      ['merchant', '8910'],
      ['platform', '90'],
    ]);
    expect(await fixture.usdcBalance(enough.payoutAddress)).toBe(8_910n);
    expect(await fixture.usdcBalance(enough.address)).toBe(0n);
    expect((await fixture.deliveryOf(newer.id))[0]).toMatchObject({ value_coin: '9000', value_forwarded_coin: '8910', fee_coin: '90' });
    expect(all.output).toMatch(new RegExp(`${little.address}.*below DUST_THRESHOLD`, 'i'));
    expect(await fixture.depositStatus(lone.id)).toBe('held');

    const forced = await sweepDust(['--wallet', little.address, '--force']);
    expect(forced.code).toBe(0);
    await fixture.waitForStatus(lone.id, 'forwarded');
    expect((await fixture.legsOf(lone.id)).map((leg) => [leg.leg, leg.amount])).toEqual([
      ['merchant', '2970'],
      ['platform', '30'],
    ]);
    expect(await fixture.usdcBalance(little.payoutAddress)).toBe(2_970n);

    const nothingLeft = await sweepDust(['--all']);
    expect(nothingLeft.code).toBe(0);
    expect(nothingLeft.output).toMatch(/no held dust/i);
  });

  it('gateway dust sweep refuses a call without --all or --wallet, and an address that is not a temporary wallet', async () => {
    const usage = await sweepDust([]);
    expect(usage.code).toBe(2);
    expect(usage.output).toMatch(/usage: gateway dust sweep/);
    const unknown = await sweepDust(['--wallet', '0x000000000000000000000000000000000000dEaD']);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toMatch(/no temporary wallet 0x000000000000000000000000000000000000dead/i);
  });
});
