import { waitFor } from '@gateway/testkit';
import type { FastifyInstance } from 'fastify';
import type { Address } from 'viem';
import { ensureLiveSettlementJob } from '@gateway/queue';
import { USDC, settlementFixtureForFile, type SettlementFixture } from '../support/settlement-fixture';

// The other Polygon USDC (USDC.e), played by a second TestUSDC on the local chain: a final deposit
// of it is held for the operator (OTHER_USDC_DEPOSITS=hold), never forwarded, swept or called back,
// and counted for the alert; the settled token's deposits of the same wallet are paid as ever.

jest.setTimeout(60_000);

let fixture: SettlementFixture;
settlementFixtureForFile('settlement_other_usdc', (started) => (fixture = started));

let other: Address;
beforeAll(async () => {
  other = await fixture.deploySecondToken();
});

/** The app's settlement job runs so far, by outcome (settlement_job_runs_total; outcomes never seen left out). */
async function jobRuns(app: FastifyInstance): Promise<Record<string, number>> {
  const body = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const runs: Record<string, number> = {};
  for (const [, outcome, count] of body.matchAll(/^settlement_job_runs_total\{outcome="(\w+)"[^}]*\} (\d+)$/gm)) {
    if (Number(count) > 0) runs[outcome!] = Number(count);
  }
  return runs;
}

/**
 * Queues the deposit's job (again, if it completed) and waits until the worker has run it once,
 * whatever came of it: what the run left is then asserted, so a payout attempted shows as such
 * rather than as a timeout.
 */
async function settlementRun(app: FastifyInstance, depositId: string): Promise<void> {
  const total = async () => Object.values(await jobRuns(app)).reduce((sum, count) => sum + count, 0);
  const before = await total();
  expect(await ensureLiveSettlementJob(fixture.settlementQueue, depositId)).toBe('enqueued');
  await waitFor(`a settlement run of deposit ${depositId}`, async () => (await total()) > before, 20_000);
}

it('holds a final USDC.e deposit for the operator: no leg, no transfer, no callback, counted and alerted on', async () => {
  const app = await fixture.startApp({ OTHER_USDC_TOKEN_ADDRESS: other });
  const wallet = await fixture.createWallet();
  const deposit = await fixture.deposit(wallet, 12n * USDC, other);
  await settlementRun(app, deposit.id);

  // Its one run held it: no payout was planned, tried or refused.
  expect(await fixture.depositStatus(deposit.id)).toBe('held_for_operator');
  expect(await jobRuns(app)).toEqual({ held: 1 });
  expect(await fixture.legsOf(deposit.id)).toEqual([]);
  expect(await fixture.transactionsOf(deposit.id)).toEqual([]);
  expect(await fixture.deliveryOf(deposit.id)).toEqual([]);
  // The USDC.e stays in the temporary wallet; the payout wallet got nothing in either token.
  expect(await fixture.usdcBalance(wallet.address, other)).toBe(12n * USDC);
  expect(await fixture.usdcBalance(wallet.payoutAddress, other)).toBe(0n);
  expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(0n);
  expect(await fixture.metric('settlement_payouts_held_total', 'reason="other_token"')).toBe(1);

  await app.settlementReconciler.reconcile();
  expect(await fixture.metric('settlement_other_token_held_deposits')).toBe(1);
  expect(await fixture.metric('settlement_other_token_held_usdc')).toBe(12);

  // Running its job again changes nothing.
  await settlementRun(app, deposit.id);
  expect(await jobRuns(app)).toEqual({ held: 2 });
  expect(await fixture.depositStatus(deposit.id)).toBe('held_for_operator');
  expect(await fixture.legsOf(deposit.id)).toEqual([]);
});

it("pays the wallet's USDC deposit as ever beside a held USDC.e one, which its payout does not carry", async () => {
  const app = await fixture.startApp({ OTHER_USDC_TOKEN_ADDRESS: other });
  const wallet = await fixture.createWallet();
  const bridged = await fixture.deposit(wallet, 5n * USDC, other);
  await settlementRun(app, bridged.id);
  expect(await fixture.depositStatus(bridged.id)).toBe('held_for_operator');
  expect(await jobRuns(app)).toEqual({ held: 1 });
  expect(await fixture.legsOf(bridged.id)).toEqual([]);
  const native = await fixture.deposit(wallet, 10n * USDC);
  await fixture.enqueue(native.id);
  await fixture.waitForPaidOut(native.id);

  // 1% platform fee of the USDC deposit alone: the USDC.e is neither paid nor reported.
  expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(9_900_000n);
  const [delivery] = await fixture.deliveryOf(native.id);
  expect(delivery).toMatchObject({ value_coin: '10000000', value_forwarded_coin: '9900000', txid_in: native.txHash });
  expect(await fixture.depositStatus(bridged.id)).toBe('held_for_operator');
  expect(await fixture.usdcBalance(wallet.address, other)).toBe(5n * USDC);
});

it('holds a deposit in a token that is neither USDC_TOKEN_ADDRESS nor the configured other one, too', async () => {
  const app = await fixture.startApp({ OTHER_USDC_TOKEN_ADDRESS: 'none' });
  const wallet = await fixture.createWallet();
  const deposit = await fixture.deposit(wallet, 2n * USDC, other);
  await settlementRun(app, deposit.id);
  expect(await fixture.depositStatus(deposit.id)).toBe('held_for_operator');
  expect(await jobRuns(app)).toEqual({ held: 1 });
  expect(await fixture.legsOf(deposit.id)).toEqual([]);
  expect(await fixture.usdcBalance(wallet.address, other)).toBe(2n * USDC);
});
