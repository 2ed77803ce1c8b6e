import { join } from 'node:path';
import { getOnOwnConnection, killStartedApps, problemsSinceShutdown, sigtermWithInsertsHeld } from '@gateway/testkit';
import { sealAddressIn, type EvmAddress, type SealingKeyRing } from '@gateway/domain';
import { loadPaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// A rolling deploy sends SIGTERM while Process Payments are in flight. The process ended its pool
// once the listener had closed, while handlers whose client had gone away were still recording
// their payments: "Cannot use a pool after calling end on the pool" from the batched checkout
// update and the status schedule, payments left 'creating'. The process is run as deployed
// (main.ts); the payments table is locked so that every request is still running when SIGTERM comes.

const MAIN = join(__dirname, '..', '..', 'src', 'main.ts');
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

async function paymentStates(): Promise<Record<string, number>> {
  const { rows } = await fixture.db.pool.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM payments GROUP BY status',
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n]));
}

/** Process Payments in flight at SIGTERM, six, each for a wallet of its own. */
function sigtermWithPaymentsInFlight(clientsGoAway: boolean) {
  const env = fixture.env();
  const { keys } = loadPaymentRedirectConfig(env);
  return sigtermWithInsertsHeld({
    main: MAIN,
    env,
    pool: fixture.db.pool,
    table: 'payments',
    insert: { pattern: '/* record payments */%', what: 'a Process Payment at its insert' },
    send: async (port) => {
      const paths = await Promise.all(Array.from({ length: 6 }, () => paymentPath(keys)));
      return paths.map((path) => getOnOwnConnection(port, path, { accept: 'application/json' }));
    },
    clientsGoAway,
  });
}

describe('payment-redirect on SIGTERM with Process Payments in flight', () => {
  beforeEach(() => fixture.db.pool.query('DELETE FROM payments'));
  afterEach(() => killStartedApps());

  it('answers every request still connected with its checkout before it exits', async () => {
    const { run, requests } = await sigtermWithPaymentsInFlight(false);
    expect(await Promise.all(requests.map((sent) => sent.answered))).toEqual(Array(6).fill(200));
    expect(await run.exited).toBe(0);
    expect(await paymentStates()).toEqual({ redirected: 6 });
    expect(problemsSinceShutdown(run.output().stdout)).toEqual([]);
  });

  it('finishes the payments of clients that went away, and only then ends its pool', async () => {
    const { run } = await sigtermWithPaymentsInFlight(true);
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
