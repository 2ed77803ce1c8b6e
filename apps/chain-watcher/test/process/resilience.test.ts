import type { FastifyInstance } from 'fastify';
import { settlementJobId } from '@gateway/queue';
import { findFreePort, startTcpForwarder, sleep, waitFor } from '@gateway/testkit';
import { FINALIZED_LAG } from '../support/local-chain';
import { insertWallet } from '../support/wallets';
import { countDeposits, depositsOf, metricValue, useWatcherBed, REDIS_URL, type WatcherTarget } from '../support/watcher-fixture';

jest.setTimeout(60_000);

const bed = useWatcherBed('watcher_resilience', { throughProxy: true });
let direct: WatcherTarget;
const role = (app: FastifyInstance) => app.chainWatcher.status().role;

async function amountsOf(walletId: string): Promise<string[]> {
  return (await depositsOf(bed.db.pool, walletId)).map((deposit) => deposit.amount);
}

beforeAll(async () => {
  direct = { ...bed.target, rpcUrl: bed.chain.anvil.rpcUrl };
});

it('keeps retrying while the RPC fails or hangs, counts the errors, and loses no block', async () => {
  const app = await bed.start({ RPC_TIMEOUT_MS: '300' });
  await waitFor('the first cursor', async () => app.chainWatcher.status().cursorBlock !== null);
  const wallet = await insertWallet(bed.db.pool);

  bed.proxy.mode = 'down';
  await bed.chain.sendUsdc(wallet.address, 1_000_000n);
  await bed.chain.mine(3);
  await bed.chain.sendUsdc(wallet.address, 2_000_000n);
  await waitFor('RPC errors counted', async () => (await metricValue(app, 'chain_watcher_rpc_errors_total')) > 0);

  bed.proxy.mode = 'hang';
  await bed.chain.sendUsdc(wallet.address, 3_000_000n);
  const requestsBefore = bed.proxy.requests;
  await sleep(1_500);
  expect(bed.proxy.requests).toBeGreaterThan(requestsBefore);
  expect(await amountsOf(wallet.id)).toEqual([]);

  bed.proxy.mode = 'pass';
  await waitFor('every deposit made during the outage', async () => (await amountsOf(wallet.id)).length === 3);
  await bed.chain.mine(FINALIZED_LAG);
  await waitFor('all final', async () => (await depositsOf(bed.db.pool, wallet.id)).every((d) => d.status === 'final'));
  expect(await amountsOf(wallet.id)).toEqual(['1000000', '2000000', '3000000']);
  expect(app.chainWatcher.status().cursorBlock).toBe((await bed.chain.head()).toString());
  await app.close();
});

it('lets one watcher lead; a standby takes over when the leader session dies or the leader stops', async () => {
  const first = await bed.start({}, direct);
  const second = await bed.start({}, direct);
  const leaders = () => [first, second].filter((app) => role(app) === 'leader');
  await waitFor('a leader', async () => leaders().length === 1);
  await sleep(600);
  expect(leaders()).toHaveLength(1);
  const leader = leaders()[0]!;
  const standby = leader === first ? second : first;

  const standbyReady = await standby.inject({ method: 'GET', url: '/readyz' });
  expect(standbyReady.statusCode).toBe(200);
  expect(standbyReady.json()).toMatchObject({ watcher: { role: 'standby', leaderSessionPid: null } });
  expect(await metricValue(standby, 'chain_watcher_leader')).toBe(0);
  expect(await metricValue(leader, 'chain_watcher_leader')).toBe(1);

  // What PostgreSQL does when the leading process dies: its session ends and the lock frees.
  const pid = leader.chainWatcher.status().leaderSessionPid;
  expect(pid).toEqual(expect.any(Number));
  await bed.db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
  await waitFor('the standby to take the lead', async () => role(standby) === 'leader');
  await sleep(600);
  expect(leaders()).toEqual([standby]);

  const wallet = await insertWallet(bed.db.pool);
  await bed.chain.sendUsdc(wallet.address, 4_000_000n);
  await waitFor('the deposit under the new leader', async () => (await amountsOf(wallet.id)).length === 1);

  await standby.close();
  await waitFor('the first leader to lead again', async () => role(leader) === 'leader');
  await bed.chain.sendUsdc(wallet.address, 5_000_000n);
  await waitFor('the next deposit', async () => (await amountsOf(wallet.id)).length === 2);
  await sleep(300);
  expect(await amountsOf(wallet.id)).toEqual(['4000000', '5000000']);
  expect(await countDeposits(bed.db.pool)).toBe(5);
  await leader.close();
});

it('keeps following the chain while Redis is away, and adds the settlement jobs once it is back', async () => {
  const redisPort = await findFreePort();
  const app = await bed.start({ REDIS_URL: `redis://127.0.0.1:${redisPort}` }, direct);
  await waitFor('a cursor', async () => app.chainWatcher.status().cursorBlock !== null);
  const wallet = await insertWallet(bed.db.pool);
  await bed.chain.sendUsdc(wallet.address, 6_000_000n);
  await bed.chain.sendUsdc(wallet.address, 7_000_000n);
  await bed.chain.mine(FINALIZED_LAG);
  await waitFor('both final', async () => (await depositsOf(bed.db.pool, wallet.id)).filter((d) => d.status === 'final').length === 2);
  // These two, and those earlier tests left unfinal that the blocks just mined made final.
  await waitFor('the jobs pending', async () => (await metricValue(app, 'chain_watcher_settlement_jobs_pending')) >= 2);
  expect(await countDeposits(bed.db.pool)).toBeGreaterThanOrEqual(2);

  const redis = await startTcpForwarder(redisPort, Number(new URL(REDIS_URL).port || 6379));
  try {
    for (const deposit of await depositsOf(bed.db.pool, wallet.id)) {
      const job = await waitFor(`the job of deposit ${deposit.id}`, async () => bed.queue.getJob(settlementJobId(deposit.id)));
      expect(job.data).toEqual({ depositId: deposit.id });
    }
    await waitFor('nothing pending', async () => (await metricValue(app, 'chain_watcher_settlement_jobs_pending')) === 0);
    await app.close();
  } finally {
    await redis.close();
  }
});
