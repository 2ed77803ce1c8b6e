import type { FastifyInstance } from 'fastify';
import { settlementJobId, settlementJobOptions } from '@gateway/queue';
import { seedDeposits, seedPayout, sqlExpression, type PayoutSeed } from '@gateway/app-testkit';
import { relayerAccount, SettlementFixture, type TestWallet } from '../support/settlement-fixture';

jest.setTimeout(120_000);

let fixture: SettlementFixture;
// Built, never started: the reconciler runs by hand and no worker takes the jobs it adds.
let app: FastifyInstance;
let wallet: TestWallet;

const DAY_MS = 24 * 3600_000;

beforeAll(async () => {
  fixture = await SettlementFixture.start('reconcile');
  app = await fixture.buildApp();
  wallet = await fixture.createWallet();
});

afterAll(async () => {
  await app?.close();
  await fixture?.close();
});

beforeEach(async () => {
  await fixture.settlementQueue.obliterate({ force: true });
  await fixture.db.pool.query('DELETE FROM payouts');
  await fixture.db.pool.query('DELETE FROM deposits');
});

/** `count` deposits of `amount` in one status, written straight to PostgreSQL (no chain needed: nothing is paid here). */
async function insertDeposits(
  count: number,
  status: string,
  options: { amount?: bigint; finalAgoSeconds?: number } = {},
): Promise<string[]> {
  const finalAt = sqlExpression(`now() - interval '${options.finalAgoSeconds ?? 0} seconds'`);
  const deposits = await seedDeposits(
    fixture.db.pool,
    Array(count).fill({ chainId: fixture.anvil.chainId, walletId: wallet.id, amount: options.amount, status, finalAt }),
  );
  return deposits.map((deposit) => deposit.id);
}

async function insertLeg(depositId: string, leg: PayoutSeed['leg'], status: PayoutSeed['status']): Promise<void> {
  await seedPayout(fixture.db.pool, {
    depositId,
    leg,
    fromAddress: wallet.address,
    toAddress: wallet.payoutAddress,
    amount: 500_000n,
    status,
    attentionReason: status === 'needs_attention' ? 'fee_address_blacklisted' : null,
  });
}

const jobState = (depositId: string) => fixture.settlementQueue.getJobState(settlementJobId(depositId));

async function metricsText(): Promise<string> {
  return (await app.inject({ method: 'GET', url: '/metrics' })).body;
}

function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : Number.NaN;
}

describe('settlement reconciler', () => {
  it('gives every one of 1,200 unsettled deposits without a job a job in one pass', async () => {
    const ids = await insertDeposits(1_200, 'final');
    await app.settlementReconciler.reconcile();

    const withoutJob: string[] = [];
    for (const id of ids) if ((await jobState(id)) === 'unknown') withoutJob.push(id);
    expect(withoutJob).toEqual([]);
    expect((await fixture.settlementQueue.getJobCounts('waiting')).waiting).toBe(1_200);
  });

  it('promotes a job delayed by days, past anything the retry schedule allows', async () => {
    const [stuck, scheduled] = await insertDeposits(2, 'forwarding');
    await fixture.settlementQueue.add(
      'settle-deposit',
      { depositId: stuck! },
      { ...settlementJobOptions, jobId: settlementJobId(stuck!), delay: 3 * DAY_MS },
    );
    // A retry a few seconds away is what the schedule does: left alone.
    await fixture.settlementQueue.add(
      'settle-deposit',
      { depositId: scheduled! },
      { ...settlementJobOptions, jobId: settlementJobId(scheduled!), delay: 5_000 },
    );

    await app.settlementReconciler.reconcile();

    expect(await jobState(stuck!)).toBe('waiting');
    expect(await jobState(scheduled!)).toBe('delayed');
  });

  it('gives a job to a forwarded deposit whose fee leg is unconfirmed, and none to one fully paid', async () => {
    const [feeUnconfirmed, done] = await insertDeposits(2, 'forwarded');
    await insertLeg(feeUnconfirmed!, 'merchant', 'confirmed');
    await insertLeg(feeUnconfirmed!, 'platform', 'broadcast');
    await insertLeg(done!, 'merchant', 'confirmed');
    await insertLeg(done!, 'platform', 'confirmed');

    await app.settlementReconciler.reconcile();

    expect(await jobState(feeUnconfirmed!)).toBe('waiting');
    expect(await jobState(done!)).toBe('unknown');
  });

  it('gives no job to a forwarded deposit whose unconfirmed leg needs a person', async () => {
    const [legNeedsAttention] = await insertDeposits(1, 'forwarded');
    await insertLeg(legNeedsAttention!, 'merchant', 'confirmed');
    await insertLeg(legNeedsAttention!, 'platform', 'needs_attention');

    await app.settlementReconciler.reconcile();

    expect(await jobState(legNeedsAttention!)).toBe('unknown');
  });

  it('reports the age of the oldest deposit awaiting settlement, the dust held and the deposits needing a person, refreshed each pass', async () => {
    await insertDeposits(1, 'final', { finalAgoSeconds: 7_200 });
    await insertDeposits(1, 'forwarding', { finalAgoSeconds: 60 });
    await insertDeposits(2, 'held', { amount: 3_500n });
    const [parked] = await insertDeposits(1, 'forwarding', { finalAgoSeconds: 90_000 });
    await fixture.db.pool.query(
      `UPDATE deposits SET status = 'needs_attention', attention_reason = 'payout_address_blacklisted', attention_at = now() WHERE id = $1`,
      [parked],
    );
    // Not awaiting settlement: neither counts towards the age.
    await insertDeposits(1, 'forwarded', { finalAgoSeconds: 90_000 });
    await insertDeposits(1, 'seen', { finalAgoSeconds: 90_000 });

    await app.settlementReconciler.reconcile();
    let text = await metricsText();
    expect(sample(text, 'settlement_oldest_unsettled_deposit_seconds')).toBeGreaterThanOrEqual(7_200);
    expect(sample(text, 'settlement_oldest_unsettled_deposit_seconds')).toBeLessThan(7_300);
    expect(sample(text, 'settlement_dust_held_deposits')).toBe(2);
    expect(sample(text, 'settlement_dust_held_usdc')).toBe(0.007);
    expect(sample(text, 'settlement_deposits_needing_attention')).toBe(1);

    await fixture.db.pool.query(
      `UPDATE deposits SET status = 'forwarded', attention_reason = NULL WHERE status IN ('final', 'forwarding', 'held', ` +
        `'needs_attention')`,
    );
    await app.settlementReconciler.reconcile();
    text = await metricsText();
    expect(sample(text, 'settlement_oldest_unsettled_deposit_seconds')).toBe(0);
    expect(sample(text, 'settlement_dust_held_deposits')).toBe(0);
    expect(sample(text, 'settlement_dust_held_usdc')).toBe(0);
    expect(sample(text, 'settlement_deposits_needing_attention')).toBe(0);
  });
});

describe("the gateway's own addresses", () => {
  it('are registered at boot (relayer and platform fee address), so the chain watcher never takes their transfers for deposits', async () => {
    const { rows } = await fixture.db.pool.query<{ address: string; role: string }>(
      'SELECT address, role FROM gateway_addresses ORDER BY role',
    );
    expect(rows).toEqual([
      { address: fixture.platformFeeAddress.toLowerCase(), role: 'platform_fee' },
      { address: relayerAccount.address.toLowerCase(), role: 'relayer' },
    ]);
  });
});
