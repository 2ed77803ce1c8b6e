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
import { walletControlFixture } from './support/wallet-control-fixture';

// A rolling deploy sends SIGTERM while Create Wallets are in flight. The process ended its pool and
// Redis once the listener had closed, while handlers whose client had gone away still waited for
// their batched inserts: a batch queued behind those running failed ("Cannot use a pool after
// calling end on the pool"), and the quota's counts of the wallets created were lost. The process
// is run as deployed (main.ts); the wallets table is locked so that every request is still running
// when SIGTERM comes.

const MAIN = join(__dirname, '..', 'src', 'main.ts');
const fixture = walletControlFixture('graceful_shutdown');
const payout = '0x52908400098527886E0F7030069857D2E4169EE7';

let order = 0;
/** Create Wallet for a callback of its own: a new wallet each. */
function walletPath(): string {
  order += 1;
  return `/control/wallet.php?address=${payout}&callback=${encodeURIComponent(`https://shop.io/ipn/shutdown?order=${order}`)}`;
}

/** Sends the requests a few milliseconds apart: several batches, some queued behind those running. */
async function sendApart(port: number, count: number) {
  const sent: Array<ReturnType<typeof getOnOwnConnection>> = [];
  for (let i = 0; i < count; i += 1) {
    sent.push(getOnOwnConnection(port, walletPath()));
    await sleep(5);
  }
  return sent;
}

const waitForBlockedInserts = () => waitForLockedStatement(fixture.db.pool, 'WITH c AS (%pay.hit%', 'a Create Wallet at its insert');

async function walletCount(): Promise<number> {
  const { rows } = await fixture.db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM wallets WHERE callback_url LIKE 'https://shop.io/ipn/shutdown%'",
  );
  return rows[0]?.n ?? 0;
}

/** The quota's count of new wallets this minute, as Redis holds it. */
async function countedThisMinute(): Promise<number> {
  const value = await fixture.cache.redis.get(`${fixture.cache.prefix}:new-wallets:${Math.floor(Date.now() / 60_000)}`);
  return Number(value ?? 0);
}

/** Lets the last requests' connections be accepted: one still in the listen backlog at SIGTERM was never in flight. */
function everyRequestArrived(): Promise<void> {
  return sleep(500);
}

describe('wallet-control on SIGTERM with Create Wallets in flight', () => {
  let afterThisTest: (() => Promise<void>) | undefined;
  beforeEach(() => fixture.db.pool.query("DELETE FROM wallets WHERE callback_url LIKE 'https://shop.io/ipn/shutdown%'"));
  afterEach(async () => {
    await afterThisTest?.().catch(() => undefined);
    afterThisTest = undefined;
    killStartedApps();
  });

  it('answers every request still connected with its wallet before it exits', async () => {
    const run = startAppProcess(MAIN, fixture.env({ HOST: '127.0.0.1', PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_PORT: '0' }));
    const port = await run.port;
    const lock = await lockTable(fixture.db.pool, 'wallets');
    afterThisTest = lock.release;
    const requests = await sendApart(port, 12);
    await waitForBlockedInserts();
    await everyRequestArrived();
    run.child.kill('SIGTERM');
    await sleep(300);
    await lock.release();
    expect(await Promise.all(requests.map((sent) => sent.answered))).toEqual(Array(12).fill(200));
    expect(await run.exited).toBe(0);
    expect(await walletCount()).toBe(12);
    expect(problemsSinceShutdown(run.output().stdout)).toEqual([]);
  });

  it('finishes the wallets of clients that went away, counts them, and only then ends its pool and Redis', async () => {
    // A minute's window of its own for the count.
    if (60_000 - (Date.now() % 60_000) < 20_000) await sleep(60_000 - (Date.now() % 60_000) + 50);
    const run = startAppProcess(MAIN, fixture.env({ HOST: '127.0.0.1', PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_PORT: '0' }));
    const port = await run.port;
    const counted = await countedThisMinute();
    const lock = await lockTable(fixture.db.pool, 'wallets');
    afterThisTest = lock.release;
    const requests = await sendApart(port, 12);
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
    expect(await walletCount()).toBe(12);
    expect((await countedThisMinute()) - counted).toBe(12);
    expect(problemsSinceShutdown(run.output().stdout)).toEqual([]);
  });
});
