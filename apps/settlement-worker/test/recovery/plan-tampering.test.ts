import { waitFor } from '@gateway/testkit';
import {
  freshAddress,
  type SettlementFixture,
  USDC,
  type TestDeposit,
  type TestWallet,
  settlementFixtureForFile,
} from '../support/settlement-fixture';
import { spawnWorker } from '../support/worker-process';
import { replanDeposit } from '../../src/operator';

jest.setTimeout(180_000);

let fixture: SettlementFixture;

settlementFixtureForFile('tamper', (started) => (fixture = started));

/**
 * A deposit whose legs are planned and not signed: a worker process plans it and is killed before
 * it signs (SETTLEMENT_CRASH_AT=before-sign), so the rows can be rewritten before any signature.
 */
async function plannedDeposit(amount: bigint): Promise<{ wallet: TestWallet; deposit: TestDeposit }> {
  const wallet = await fixture.createWallet();
  const deposit = await fixture.deposit(wallet, amount);
  await fixture.enqueue(deposit.id);
  const planner = spawnWorker(fixture.env({ SETTLEMENT_CRASH_AT: 'before-sign' }));
  const { signal } = await planner.exited;
  expect({ signal, output: signal === 'SIGKILL' ? '' : planner.output() }).toEqual({ signal: 'SIGKILL', output: '' });
  expect((await fixture.legsOf(deposit.id)).map((leg) => leg.status)).toEqual(['planned', 'planned']);
  // The dead worker's job would wait for its lock to lapse; a fresh job id is not needed, only a run.
  await fixture.settlementQueue.obliterate({ force: true });
  return { wallet, deposit };
}

/** Today every app connects with the same credentials, so any of them can do this (the API apps, after a compromise). */
async function rewriteLeg(depositId: string, leg: string, set: string, values: unknown[]): Promise<void> {
  const { rowCount } = await fixture.db.pool.query(`UPDATE payouts SET ${set} WHERE deposit_id = $1 AND leg = $2`, [
    depositId,
    leg,
    ...values,
  ]);
  expect(rowCount).toBe(1);
}

/** Runs settlement on the deposit until it waits for a person, or is forwarded with no leg in flight. */
async function settle(depositId: string): Promise<void> {
  await fixture.runningApp();
  await fixture.enqueue(depositId);
  await waitFor(
    `deposit ${depositId} to settle`,
    async () => {
      const status = await fixture.depositStatus(depositId);
      if (status === 'needs_attention') return true;
      const active = (await fixture.legsOf(depositId)).filter((leg) => leg.status !== 'cancelled');
      return status === 'forwarded' && active.every((leg) => leg.status === 'confirmed' || leg.status === 'needs_attention');
    },
    60_000,
  );
}

async function attentionOf(depositId: string) {
  const { rows } = await fixture.db.pool.query<{ leg: string; status: string; attention_reason: string | null }>(
    `SELECT leg, status, attention_reason FROM payouts WHERE deposit_id = $1 AND status <> 'cancelled' ORDER BY id`,
    [depositId],
  );
  const deposit = await fixture.db.pool.query<{ status: string; attention_reason: string | null }>(
    'SELECT status, attention_reason FROM deposits WHERE id = $1',
    [depositId],
  );
  return { deposit: deposit.rows[0], legs: rows };
}

/** The merchant's leg refused as not the plan: it parks the deposit, and nothing is driven until a person re-plans it. */
async function expectMerchantLegRefused(depositId: string): Promise<void> {
  expect(await attentionOf(depositId)).toEqual({
    deposit: { status: 'needs_attention', attention_reason: 'plan_mismatch' },
    legs: [
      { leg: 'merchant', status: 'needs_attention', attention_reason: 'plan_mismatch' },
      { leg: 'platform', status: 'planned', attention_reason: null },
    ],
  });
  expect(await fixture.transactionsOf(depositId)).toEqual([]);
}

describe('settlement recomputes every leg from the wallet before it signs', () => {
  it("refuses a merchant leg rewritten to an attacker's address: nothing paid to them, the deposit needs attention, replan pays the merchant", async () => {
    const { wallet, deposit } = await plannedDeposit(5n * USDC);
    const attacker = freshAddress();
    await rewriteLeg(deposit.id, 'merchant', 'to_address = $3', [attacker.toLowerCase()]);

    await settle(deposit.id);

    expect(await fixture.usdcBalance(attacker)).toBe(0n);
    await expectMerchantLegRefused(deposit.id);
    expect(await fixture.deliveryOf(deposit.id)).toEqual([]);

    // The operator's replan writes the legs again from the wallet's terms, and they are paid there.
    const outcome = await replanDeposit(fixture.config(), fixture.db.appPool('settlement-worker'), deposit.id, {
      timeoutMs: 30_000,
      report: () => undefined,
    });
    expect(outcome).toMatchObject({
      result: 'replanned',
      replaced: [
        { leg: 'merchant', toAddress: wallet.payoutAddress.toLowerCase(), amount: 4_950_000n },
        { leg: 'platform', toAddress: fixture.platformFeeAddress.toLowerCase(), amount: 50_000n },
      ],
      queuedBy: 'queued',
    });
    await settle(deposit.id);
    expect(await attentionOf(deposit.id)).toMatchObject({
      deposit: { status: 'forwarded' },
      legs: [{ status: 'confirmed' }, { status: 'confirmed' }],
    });
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(4_950_000n);
    expect(await fixture.usdcBalance(attacker)).toBe(0n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
  });

  it("refuses amounts moved from the merchant's leg to a fee leg sent to an attacker: nothing is signed", async () => {
    const { wallet, deposit } = await plannedDeposit(5n * USDC);
    const attacker = freshAddress();
    // The total is unchanged: only a comparison with the wallet's terms tells.
    await rewriteLeg(deposit.id, 'merchant', 'amount = amount - $3', ['4000000']);
    await rewriteLeg(deposit.id, 'platform', 'to_address = $3, amount = amount + $4', [attacker.toLowerCase(), '4000000']);

    await settle(deposit.id);

    expect(await fixture.usdcBalance(attacker)).toBe(0n);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(0n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(5n * USDC);
    await expectMerchantLegRefused(deposit.id);
  });

  it('refuses a fee leg rewritten to an attacker, and still pays the merchant and calls back', async () => {
    const { wallet, deposit } = await plannedDeposit(5n * USDC);
    const attacker = freshAddress();
    await rewriteLeg(deposit.id, 'platform', 'to_address = $3', [attacker.toLowerCase()]);

    await settle(deposit.id);

    expect(await fixture.usdcBalance(attacker)).toBe(0n);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(4_950_000n);
    expect(await attentionOf(deposit.id)).toEqual({
      deposit: { status: 'forwarded', attention_reason: null },
      legs: [
        { leg: 'merchant', status: 'confirmed', attention_reason: null },
        { leg: 'platform', status: 'needs_attention', attention_reason: 'plan_mismatch' },
      ],
    });
    expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
    const app = await fixture.runningApp();
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^settlement_needs_attention_total\{[^}]*reason="plan_mismatch"[^}]*\} 1$/m);
  });
});
