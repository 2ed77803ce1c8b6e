import { join } from 'node:path';
import type { PoolClient } from 'pg';
import { getOnOwnConnection, killStartedApps, startAppProcess } from '@gateway/testkit';
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
  const sent: Array<ReturnType<typeof getOnOwnConnection>> = [];
  for (let i = 0; i < count; i += 1) {
    sent.push(getOnOwnConnection(port, walletPath()));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return sent;
}

/** Holds every new wallet's insert until released. */
async function lockWallets(): Promise<{ release: () => Promise<void> }> {
  const client: PoolClient = await fixture.db.pool.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE wallets IN SHARE MODE');
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await client.query('COMMIT');
      client.release();
    },
  };
}

async function waitForBlockedInserts(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await fixture.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH c AS (%pay.hit%'`,
    );
    if ((rows[0]?.n ?? 0) > 0) return;
    if (Date.now() > deadline) throw new Error('no Create Wallet reached its insert');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
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

/** Lets the last requests' connections be accepted: one still in the listen backlog at SIGTERM was never in flight. */
function everyRequestArrived(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 500));
}

/** Log lines at warn or above (pino levels 40+) from the shutdown on (the sandbox's warnings at boot are expected). */
function problems(stdout: string): string[] {
  const shutdown = stdout.indexOf('"msg":"shutting down"');
  expect(shutdown).toBeGreaterThan(-1);
  return stdout
    .slice(shutdown)
    .split('\n')
    .filter((line) => /"level":(4|5|6)0/.test(line));
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
    const lock = await lockWallets();
    afterThisTest = lock.release;
    const requests = await sendApart(port, 12);
    await waitForBlockedInserts();
    await everyRequestArrived();
    run.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await lock.release();
    expect(await Promise.all(requests.map((sent) => sent.answered))).toEqual(Array(12).fill(200));
    expect(await run.exited).toBe(0);
    expect(await walletCount()).toBe(12);
    expect(problems(run.output().stdout)).toEqual([]);
  });

  it('finishes the wallets of clients that went away, counts them, and only then ends its pool and Redis', async () => {
    // A minute's window of its own for the count.
    if (60_000 - (Date.now() % 60_000) < 20_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 50));
    const run = startAppProcess(MAIN, fixture.env({ HOST: '127.0.0.1', PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_PORT: '0' }));
    const port = await run.port;
    const counted = await countedThisMinute();
    const lock = await lockWallets();
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
    await new Promise((resolve) => setTimeout(resolve, 300));
    await lock.release();
    expect(await run.exited).toBe(0);
    expect(await walletCount()).toBe(12);
    expect((await countedThisMinute()) - counted).toBe(12);
    expect(problems(run.output().stdout)).toEqual([]);
  });
});
