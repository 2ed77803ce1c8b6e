import { parseGwei } from 'viem';
import { sleep, waitFor } from '@gateway/testkit';
import { loadSettlementConfig } from '../../src/config';
import { type SettlementFixture, settlementFixtureForFile, USDC, type TestDeposit } from '../support/settlement-fixture';

jest.setTimeout(120_000);

let fixture: SettlementFixture;

settlementFixtureForFile('fee_ceiling', (started) => (fixture = started));

interface RecordedFees {
  leg: string;
  reason: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

async function feesOf(deposit: TestDeposit): Promise<RecordedFees[]> {
  const { rows } = await fixture.db.pool.query<{ leg: string; reason: string; max_fee: string; max_priority: string }>(
    `SELECT p.leg, t.reason, t.max_fee_per_gas::text AS max_fee, t.max_priority_fee_per_gas::text AS max_priority
     FROM payout_transactions t JOIN payouts p ON p.id = t.payout_id WHERE p.deposit_id = $1 ORDER BY t.id`,
    [deposit.id],
  );
  return rows.map((row) => ({
    leg: row.leg,
    reason: row.reason,
    maxFeePerGas: BigInt(row.max_fee),
    maxPriorityFeePerGas: BigInt(row.max_priority),
  }));
}

describe('the fee ceiling (MAX_FEE_PER_GAS_GWEI)', () => {
  it('a stuck transaction bumped again and again never goes above it, and stops at it, saying so', async () => {
    const ceiling = parseGwei('4');
    await fixture.startApp({ STUCK_TX_TIMEOUT_MS: '200', MAX_FEE_PER_GAS_GWEI: '4' });
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 7n * USDC);
    await fixture.testClient().setAutomine(false);
    await fixture.enqueue(deposit.id);

    // Bumped every 200 ms while nothing is mined: at +25% a time from about 2.2 gwei, the ceiling
    // comes at the third bump; eight bumps would reach 13 gwei.
    const bumps = async () => (await feesOf(deposit)).filter((t) => t.reason === 'fee-bump').length;
    await waitFor(
      'the ceiling reached, or eight bumps',
      async () => (await fixture.metric('settlement_fee_ceiling_total', 'outcome="held"')) >= 1 || (await bumps()) >= 8,
      30_000,
    );
    const atCeiling = await feesOf(deposit);
    for (const transaction of atCeiling) {
      expect(transaction.maxFeePerGas).toBeLessThanOrEqual(ceiling);
      expect(transaction.maxPriorityFeePerGas).toBeLessThanOrEqual(transaction.maxFeePerGas);
    }
    const merchant = atCeiling.filter((t) => t.leg === 'merchant');
    expect(merchant.filter((t) => t.reason === 'fee-bump').length).toBeGreaterThanOrEqual(2);
    expect(merchant.at(-1)!.maxFeePerGas).toBe(ceiling);
    // Held at the ceiling: no further replacement, however long it stays stuck.
    await sleep(1_500);
    expect(await feesOf(deposit)).toEqual(atCeiling);

    await fixture.testClient().setAutomine(true);
    await fixture.testClient().mine({ blocks: 1 });
    await fixture.waitForPaidOut(deposit.id);
  });

  it('signs a first transaction at the ceiling when the fee estimate is above it', async () => {
    const { baseFeePerGas } = await fixture.rpc.getBlock();
    // Above the base fee (so it can be mined), below the estimate (base fee · 1.2 + the tip).
    const ceilingGwei = ((Number(baseFeePerGas) * 1.05) / 1e9).toFixed(9);
    const ceiling = parseGwei(ceilingGwei);
    await fixture.startApp({ STUCK_TX_TIMEOUT_MS: '600000', MAX_FEE_PER_GAS_GWEI: ceilingGwei });
    const wallet = await fixture.createWallet();
    const deposit = await fixture.depositPaidOut(wallet, 3n * USDC);
    const fees = await feesOf(deposit);
    expect(fees.map((t) => t.maxFeePerGas)).toEqual([ceiling, ceiling]);
    expect(await fixture.metric('settlement_fee_ceiling_total', 'outcome="capped"')).toBe(2);
  });

  it('is read in gwei, and refused at 0', () => {
    const env = fixture.env();
    expect(loadSettlementConfig({ ...env, MAX_FEE_PER_GAS_GWEI: '1000' }).maxFeePerGas).toBe(1_000n * 10n ** 9n);
    expect(loadSettlementConfig({ ...env, MAX_FEE_PER_GAS_GWEI: '0.5' }).maxFeePerGas).toBe(500_000_000n);
    expect(loadSettlementConfig(env).maxFeePerGas).toBe(parseGwei('1000'));
    expect(() => loadSettlementConfig({ ...env, MAX_FEE_PER_GAS_GWEI: '0' })).toThrow(/MAX_FEE_PER_GAS_GWEI/);
  });
});
