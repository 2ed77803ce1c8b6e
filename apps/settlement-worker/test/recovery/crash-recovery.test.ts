import { CRASH_POINTS, type CrashPoint } from '../../src/crash-points';
import { SettlementFixture, USDC } from '../support/settlement-fixture';
import { spawnWorker, type WorkerProcess } from '../support/worker-process';

jest.setTimeout(180_000);

let fixture: SettlementFixture;
const running: WorkerProcess[] = [];

beforeAll(async () => {
  fixture = await SettlementFixture.start('crash');
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((worker) => worker.stop()));
});

afterAll(async () => {
  await fixture?.close();
});

function start(env: Record<string, string> = {}): WorkerProcess {
  const worker = spawnWorker(fixture.env({ LOG_LEVEL: 'info', ...env }));
  running.push(worker);
  return worker;
}

/** What the killed process must have left behind at each point, read from PostgreSQL. */
async function expectStateAtCrash(point: CrashPoint, depositId: string): Promise<void> {
  expect(await fixture.depositStatus(depositId)).toBe('forwarding');
  const legs = await fixture.legsOf(depositId);
  const transactions = await fixture.transactionsOf(depositId);
  expect(legs.map((leg) => leg.leg)).toEqual(['merchant', 'platform']);
  switch (point) {
    case 'before-sign':
      expect(legs.map((leg) => leg.status)).toEqual(['planned', 'planned']);
      expect(transactions).toEqual([]);
      break;
    case 'before-broadcast':
    case 'after-broadcast':
      // The merchant leg's transaction is recorded (and, after-broadcast, on chain), but the
      // process died before noting that it was sent.
      expect(transactions.map((t) => [t.leg, t.status])).toEqual([['merchant', 'recorded']]);
      expect(
        await fixture.rpc.getTransactionReceipt({ hash: transactions[0]!.tx_hash as `0x${string}` }).then(
          () => 'mined',
          () => 'unknown',
        ),
      ).toBe(point === 'after-broadcast' ? 'mined' : 'unknown');
      break;
    case 'before-receipt':
      // Both legs sent and mined, neither confirmed in the database.
      expect(transactions.map((t) => [t.leg, t.status])).toEqual([
        ['merchant', 'sent'],
        ['platform', 'sent'],
      ]);
      expect(legs.map((leg) => leg.status)).toEqual(['broadcast', 'broadcast']);
      break;
  }
}

describe('a worker process killed mid-payout (SIGKILL)', () => {
  it.each(CRASH_POINTS)('at %s: the next process completes the payout, and pays exactly once', async (point) => {
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 5n * USDC);
    await fixture.enqueue(deposit.id);

    const doomed = start({ SETTLEMENT_CRASH_AT: point });
    const { signal } = await doomed.exited;
    expect({ signal, output: signal === 'SIGKILL' ? '' : doomed.output() }).toEqual({ signal: 'SIGKILL', output: '' });
    await expectStateAtCrash(point, deposit.id);

    // The job is still "active" under the dead worker's lock; the new process takes it over
    // when the lock lapses (JOB_LOCK_MS) and resumes from what PostgreSQL recorded.
    const survivor = start();
    await fixture.waitForPaidOut(deposit.id, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${survivor.output()}`);
    });

    expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(4_950_000n);
    expect(await fixture.usdcBalance(wallet.address)).toBe(0n);
    expect(await fixture.nativeBalance(wallet.address)).toBe(0n);
    const uses = await fixture.authorizationUses(wallet.address);
    const legs = await fixture.legsOf(deposit.id);
    expect(legs.map((leg) => [leg.status, uses.get(leg.authorization_nonce)])).toEqual([
      ['confirmed', 1],
      ['confirmed', 1],
    ]);
    expect(uses.size).toBe(2);
    // Whatever was recorded before the crash was reused, not sent a second time under a new relayer nonce.
    const transactions = await fixture.transactionsOf(deposit.id);
    expect(transactions.map((t) => [t.leg, t.status])).toEqual([
      ['merchant', 'mined'],
      ['platform', 'mined'],
    ]);
    expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
  });
});
