import { join } from 'node:path';
import {
  getOnOwnConnection,
  killStartedApps,
  lockTable,
  problemsSinceShutdown,
  sleep,
  startAppProcess,
  waitForLockedStatement,
} from '@gateway/testkit';
import { sealAddressIn, type EvmAddress, type SealingKeyRing } from '@gateway/domain';
import { loadPaymentRedirectConfig } from '../src/config';
import { paymentRedirectFixture } from './support/payment-redirect-fixture';

// A rolling deploy sends SIGTERM while Process Payments are in flight. The process ended its pool
// once the listener had closed, while handlers whose client had gone away were still recording
// their payments: "Cannot use a pool after calling end on the pool" from the batched checkout
// update and the status schedule, payments left 'creating'. The process is run as deployed
// (main.ts); the payments table is locked so that every request is still running when SIGTERM comes.

const MAIN = join(__dirname, '..', 'src', 'main.ts');
const fixture = paymentRedirectFixture('graceful_shutdown');

let walletIndex = 0;
async function paymentPath(keys: SealingKeyRing): Promise<string> {
  walletIndex += 1;
  const temporary = `0x${walletIndex.toString(16).padStart(40, 'd')}` as EvmAddress;
  const addressIn = sealAddressIn(temporary, keys);
  await fixture.insertWallet({
    temporary,
    addressIn,
    callbackUrl: `https://shop.io/ipn?order=${walletIndex}`,
    hdIndex: BigInt(walletIndex),
  });
  return `/process-payment.php?address=${encodeURIComponent(addressIn)}&amount=49.99&provider=moonpay&email=jane%40shop.io&currency=USD`;
}

const waitForBlockedInserts = () => waitForLockedStatement(fixture.db.pool, '%INSERT INTO payments%', 'a Process Payment at its insert');

async function paymentStates(): Promise<Record<string, number>> {
  const { rows } = await fixture.db.pool.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM payments GROUP BY status',
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

/** Lets the last requests' connections be accepted: one still in the listen backlog at SIGTERM was never in flight. */
function everyRequestArrived(): Promise<void> {
  return sleep(500);
}

describe('payment-redirect on SIGTERM with Process Payments in flight', () => {
  let afterThisTest: (() => Promise<void>) | undefined;
  beforeEach(() => fixture.db.pool.query('DELETE FROM payments'));
  afterEach(async () => {
    await afterThisTest?.().catch(() => undefined);
    afterThisTest = undefined;
    killStartedApps();
  });

  it('answers every request still connected with its checkout before it exits', async () => {
    const env = fixture.env({ HOST: '127.0.0.1', PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_PORT: '0' });
    const run = startAppProcess(MAIN, env);
    const port = await run.port;
    const { keys } = loadPaymentRedirectConfig(env);
    const paths = await Promise.all(Array.from({ length: 6 }, () => paymentPath(keys)));
    const lock = await lockTable(fixture.db.pool, 'payments');
    afterThisTest = lock.release;
    const requests = paths.map((path) => getOnOwnConnection(port, path, { accept: 'application/json' }));
    await waitForBlockedInserts();
    await everyRequestArrived();
    run.child.kill('SIGTERM');
    await sleep(300);
    await lock.release();
    expect(await Promise.all(requests.map((sent) => sent.answered))).toEqual(Array(6).fill(200));
    expect(await run.exited).toBe(0);
    expect(await paymentStates()).toEqual({ redirected: 6 });
    expect(problemsSinceShutdown(run.output().stdout)).toEqual([]);
  });

  it('finishes the payments of clients that went away, and only then ends its pool', async () => {
    const env = fixture.env({ HOST: '127.0.0.1', PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_PORT: '0' });
    const run = startAppProcess(MAIN, env);
    const port = await run.port;
    const { keys } = loadPaymentRedirectConfig(env);
    const paths = await Promise.all(Array.from({ length: 6 }, () => paymentPath(keys)));
    const lock = await lockTable(fixture.db.pool, 'payments');
    afterThisTest = lock.release;
    const requests = paths.map((path) => getOnOwnConnection(port, path, { accept: 'application/json' }));
    await waitForBlockedInserts();
    await everyRequestArrived();
    // Load balancer timeouts: the listener closes at once, the handlers are still running.
    for (const sent of requests) {
      sent.answered.catch(() => undefined);
      sent.abort();
    }
    run.child.kill('SIGTERM');
    await sleep(300);
    await lock.release();
    expect(await run.exited).toBe(0);
    // Each payment has its checkout and its first status look-up: none is left 'creating'.
    expect(await paymentStates()).toEqual({ redirected: 6 });
    const { rows } = await fixture.db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM payments WHERE status_poll_due_at IS NOT NULL',
    );
    expect(rows[0]?.n).toBe(6);
    expect(problemsSinceShutdown(run.output().stdout)).toEqual([]);
  });
});
