import { join } from 'node:path';
import {
  getOnOwnConnection,
  killStartedApps,
  problemsSinceShutdown,
  sigtermWithInsertsHeld,
  sleep,
  type SentRequest,
} from '@gateway/testkit';
import { freshMinute } from '../support/fresh-minute';
import { walletControlFixture } from '../support/wallet-control-fixture';

// A rolling deploy sends SIGTERM while Create Wallets are in flight. The process ended its pool and
// Redis once the listener had closed, while handlers whose client had gone away still waited for
// their batched inserts: a batch queued behind those running failed ("Cannot use a pool after
// calling end on the pool"), and the quota's counts of the wallets created were lost. The process
// is run as deployed (main.ts); the wallets table is locked so that every request is still running
// when SIGTERM comes.

const MAIN = join(__dirname, '..', '..', 'src', 'main.ts');
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
  const sent: SentRequest[] = [];
  for (let i = 0; i < count; i += 1) {
    sent.push(getOnOwnConnection(port, walletPath()));
    await sleep(5);
  }
  return sent;
}

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

/** Create Wallets in flight at SIGTERM, twelve, a few milliseconds apart. */
function sigtermWithWalletsInFlight(clientsGoAway: boolean) {
  return sigtermWithInsertsHeld({
    main: MAIN,
    env: fixture.env(),
    pool: fixture.db.pool,
    table: 'wallets',
    insert: { pattern: 'WITH c AS (%pay.hit%', what: 'a Create Wallet at its insert' },
    send: (port) => sendApart(port, 12),
    clientsGoAway,
  });
}

describe('wallet-control on SIGTERM with Create Wallets in flight', () => {
  beforeEach(() => fixture.db.pool.query("DELETE FROM wallets WHERE callback_url LIKE 'https://shop.io/ipn/shutdown%'"));
  afterEach(() => killStartedApps());

  it('answers every request still connected with its wallet before it exits', async () => {
    const { run, requests } = await sigtermWithWalletsInFlight(false);
    expect(await Promise.all(requests.map((sent) => sent.answered))).toEqual(Array(12).fill(200));
    expect(await run.exited).toBe(0);
    expect(await walletCount()).toBe(12);
    expect(problemsSinceShutdown(run.output().stdout)).toEqual([]);
  });

  it('finishes the wallets of clients that went away, counts them, and only then ends its pool and Redis', async () => {
    // A minute's window of its own for the count.
    await freshMinute();
    const counted = await countedThisMinute();
    const { run } = await sigtermWithWalletsInFlight(true);
    expect(await run.exited).toBe(0);
    expect(await walletCount()).toBe(12);
    expect((await countedThisMinute()) - counted).toBe(12);
    expect(problemsSinceShutdown(run.output().stdout)).toEqual([]);
  });
});
