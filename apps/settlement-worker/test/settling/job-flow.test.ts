import type { Job } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { SettlementRepository } from '@gateway/db/settlement-worker';
import { settlementJobId } from '@gateway/queue';
import { waitFor } from '@gateway/testkit';
import { type SettlementFixture, USDC, type TestDeposit, settlementFixtureWithProxyForFile } from '../support/settlement-fixture';
import type { RpcProxy } from '@gateway/testkit';

jest.setTimeout(120_000);

let fixture: SettlementFixture;
let node: RpcProxy;

// Without the tag, payouts are final at CONFIRMATIONS depth; by anvil's tag they would be final at once.
settlementFixtureWithProxyForFile('jobflow', (started, proxy) => ([fixture, node] = [started, proxy]), 'refuse');

/** A worker on the test node: payouts are final at CONFIRMATIONS depth (the tests mine the blocks). */
function startApp(overrides: Record<string, string> = {}): Promise<FastifyInstance> {
  return fixture.startApp({ CHAIN_RPC_URL: node.url, ...overrides });
}

async function jobOf(depositId: string): Promise<Job> {
  const job = await fixture.settlementQueue.getJob(settlementJobId(depositId));
  if (!job) throw new Error(`deposit ${depositId} has no settlement job`);
  return job;
}

// BullMQ counts the run that completes a job as an attempt too: a completed job that never failed shows 1.
const COMPLETED_WITHOUT_FAILURE = { state: 'completed', attemptsMade: 1, failedReason: undefined };

/** What matters about a job between its runs: where it is, and how many failures BullMQ counted. */
async function jobSummary(depositId: string): Promise<{ state: string; attemptsMade: number; failedReason: string | undefined }> {
  const job = await jobOf(depositId);
  return { state: await job.getState(), attemptsMade: job.attemptsMade, failedReason: job.failedReason || undefined };
}

describe('what is not a failure', () => {
  it('a deposit locked by another worker (busy): the job is delayed and comes back, attemptsMade unchanged', async () => {
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 3n * USDC);
    const otherWorker = await new SettlementRepository(fixture.db.pool).tryLockDeposit(deposit.id);
    expect(otherWorker).toBeDefined();
    try {
      await startApp();
      await fixture.enqueue(deposit.id);
      // The run is counted when it ends, after BullMQ counted its start: wait for the count, not the start.
      await waitFor('three busy runs', async () => (await fixture.metric('settlement_job_runs_total', 'outcome="busy"')) >= 3, 20_000);
      expect((await jobOf(deposit.id)).attemptsStarted).toBeGreaterThanOrEqual(3);
      expect(await jobSummary(deposit.id)).toEqual({
        state: expect.stringMatching(/^(delayed|active|waiting)$/),
        attemptsMade: 0,
        failedReason: undefined,
      });
    } finally {
      await otherWorker!.release();
    }
    await fixture.waitForStatus(deposit.id, 'forwarded');
    await waitFor('the job to finish', async () => (await jobOf(deposit.id)).finishedOn !== undefined, 10_000);
    expect(await jobSummary(deposit.id)).toEqual(COMPLETED_WITHOUT_FAILURE);
  });

  it('a job running when the worker shuts down: delayed for the next process, attemptsMade unchanged', async () => {
    // Twenty blocks that nobody mines: the payout cannot be confirmed while this worker runs.
    await startApp({ CONFIRMATIONS: '20' });
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 4n * USDC);
    await fixture.enqueue(deposit.id);
    await fixture.waitForSent(deposit.id);

    await fixture.stopApp();
    expect(await jobSummary(deposit.id)).toEqual({ state: 'delayed', attemptsMade: 0, failedReason: undefined });
    expect(await fixture.depositStatus(deposit.id)).toBe('forwarding');

    await startApp({ CONFIRMATIONS: '20' });
    await fixture.testClient().mine({ blocks: 20 });
    await fixture.waitForStatus(deposit.id, 'forwarded');
    await waitFor('the job to finish', async () => (await jobOf(deposit.id)).finishedOn !== undefined, 10_000);
    expect(await jobSummary(deposit.id)).toEqual(COMPLETED_WITHOUT_FAILURE);
  });
});

describe('one round per run', () => {
  it('with one worker slot, deposits waiting for confirmations do not wait for each other, and their locks are free between runs', async () => {
    await startApp({ WORKER_CONCURRENCY: '1', CONFIRMATIONS: '20' });
    const wallets = await Promise.all([fixture.createWallet(), fixture.createWallet(), fixture.createWallet()]);
    const deposits: TestDeposit[] = [];
    for (const wallet of wallets) deposits.push(await fixture.deposit(wallet, 2n * USDC));
    for (const deposit of deposits) await fixture.enqueue(deposit.id);

    // Held for a whole payout, the one slot would keep the 2nd and 3rd deposit waiting until the
    // 1st is 20 blocks deep, which it never gets while nobody mines.
    await waitFor(
      'every deposit to have both legs sent',
      async () => (await Promise.all(deposits.map((deposit) => fixture.legsSent(deposit.id)))).every(Boolean),
      20_000,
    );
    const locks = new SettlementRepository(fixture.db.pool);
    await waitFor(
      'the first deposit to be unlocked between two runs of its job',
      async () => {
        const lock = await locks.tryLockDeposit(deposits[0]!.id);
        await lock?.release();
        return lock !== undefined;
      },
      5_000,
    );
    for (const deposit of deposits) expect(await fixture.depositStatus(deposit.id)).toBe('forwarding');

    await fixture.testClient().mine({ blocks: 20 });
    for (const deposit of deposits) await fixture.waitForStatus(deposit.id, 'forwarded');
    for (const deposit of deposits) expect((await fixture.legsOf(deposit.id)).map((leg) => leg.status)).toEqual(['confirmed', 'confirmed']);
  });
});

describe('merchant first', () => {
  it('a platform-fee leg whose transaction is withheld does not hold the callback back; it is paid later by the same job', async () => {
    node.withholdSendsTo = fixture.platformFeeAddress;
    await startApp();
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 7n * USDC);
    const feeBefore = await fixture.usdcBalance(fixture.platformFeeAddress);
    await fixture.enqueue(deposit.id);

    await fixture.waitForStatus(deposit.id, 'forwarded', 20_000);
    const [delivery, ...others] = await fixture.deliveryOf(deposit.id);
    expect(others).toEqual([]);
    expect(delivery).toMatchObject({ value_coin: '7000000', value_forwarded_coin: '6930000', fee_coin: '70000', status: 'pending' });
    expect(await fixture.hasCallbackJob(delivery!.id)).toBe(true);
    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(6_930_000n);
    expect(await fixture.usdcBalance(fixture.platformFeeAddress)).toBe(feeBefore);
    const legs = await fixture.legsOf(deposit.id);
    expect(legs.map((leg) => [leg.leg, leg.status === 'confirmed'])).toEqual([
      ['merchant', true],
      ['platform', false],
    ]);
    expect(delivery!.txid_out).toBe(legs[0]!.tx_hash);
    // The job lives on for the platform leg.
    await waitFor('the platform leg to be tried again', async () => node.withheldSends >= 2, 10_000);
    expect((await jobSummary(deposit.id)).state).toMatch(/^(delayed|active|waiting)$/);

    node.withholdSendsTo = undefined;
    await waitFor(
      'the platform leg to be confirmed',
      async () => (await fixture.legsOf(deposit.id)).every((leg) => leg.status === 'confirmed'),
      20_000,
    );
    await waitFor('the job to finish', async () => (await jobOf(deposit.id)).finishedOn !== undefined, 10_000);
    expect(await jobSummary(deposit.id)).toEqual(COMPLETED_WITHOUT_FAILURE);
    expect((await fixture.usdcBalance(fixture.platformFeeAddress)) - feeBefore).toBe(70_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
    const uses = await fixture.authorizationUses(wallet.address);
    expect((await fixture.legsOf(deposit.id)).map((leg) => uses.get(leg.authorization_nonce))).toEqual([1, 1]);
  });
});
