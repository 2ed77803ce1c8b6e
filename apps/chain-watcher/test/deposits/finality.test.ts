import { sleep, waitFor } from '@gateway/testkit';
import type { FastifyInstance } from 'fastify';
import { insertWallet } from '../support/wallets';
import { CONFIRMATIONS, depositsOf, metricValue, useWatcherBed, readUpToHead } from '../support/watcher-fixture';

jest.setTimeout(60_000);

const bed = useWatcherBed('watcher_finality', { throughProxy: true });
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
  bed.proxy.finalizedTag = 'pass';
  bed.proxy.refuseFinalizedTagTimes(0);
});

async function watch(): Promise<FastifyInstance> {
  app = await bed.watch();
  return app;
}

/** Waits until the watcher has read up to the head, then lets a few more rounds (finality) run. */
async function caughtUp(watcher: FastifyInstance): Promise<void> {
  await readUpToHead(watcher, bed.chain);
  await sleep(500);
}

async function statusOf(walletId: string): Promise<string | undefined> {
  return (await depositsOf(bed.db.pool, walletId))[0]?.status;
}

async function depositSeen(amount: bigint): Promise<string> {
  const wallet = await insertWallet(bed.db.pool);
  await bed.chain.sendUsdc(wallet.address, amount);
  await waitFor('the deposit seen', async () => (await statusOf(wallet.id)) === 'seen');
  return wallet.id;
}

const mode = (watcher: FastifyInstance, name: string) => metricValue(watcher, 'chain_finality_mode', { mode: name });

/** Once the watcher has caught up, the deposit is still not final: finality is the finalized tag's, which has not reached it. */
async function expectHeldByFinalizedTag(watcher: FastifyInstance, walletId: string): Promise<void> {
  await caughtUp(watcher);
  expect(await statusOf(walletId)).toBe('seen');
  expect(await mode(watcher, 'finalized')).toBe(1);
  expect(await mode(watcher, 'depth')).toBe(0);
}

describe('finality where the node serves the finalized tag', () => {
  it('a deposit far deeper than CONFIRMATIONS stays unfinal while the finalized block has not reached it', async () => {
    bed.proxy.finalizedTag = { stalledAt: await bed.chain.head() };
    const watcher = await watch();
    const walletId = await depositSeen(1_000_000n);

    // Finality stalls while blocks keep coming: depth alone must not make the deposit final.
    await bed.chain.mine(CONFIRMATIONS * 50);
    await expectHeldByFinalizedTag(watcher, walletId);
    expect(await metricValue(watcher, 'chain_finality_lag_blocks')).toBeGreaterThanOrEqual(CONFIRMATIONS * 50);

    // Finality moves again (anvil's own finalized block is head - 64, past the deposit now).
    bed.proxy.finalizedTag = 'pass';
    await waitFor('the deposit final', async () => (await statusOf(walletId)) === 'final');
    expect(await metricValue(watcher, 'chain_finality_lag_blocks')).toBe(64);
  });

  it('an error answer to the finalized query now and then does not switch finality to depth', async () => {
    bed.proxy.finalizedTag = { stalledAt: await bed.chain.head() };
    const watcher = await watch();
    const walletId = await depositSeen(2_000_000n);

    const refusedBefore = bed.proxy.finalizedTagRefusals;
    bed.proxy.refuseFinalizedTagTimes(5);
    await bed.chain.mine(CONFIRMATIONS * 10);
    await waitFor('a refusal answered', async () => bed.proxy.finalizedTagRefusals > refusedBefore);
    await bed.chain.mine(CONFIRMATIONS * 10);
    await expectHeldByFinalizedTag(watcher, walletId);
  });
});

describe('finality where the node does not serve the finalized tag', () => {
  it('falls back to CONFIRMATIONS depth, and switches to the tag once the node starts answering it', async () => {
    bed.proxy.finalizedTag = 'refuse';
    const watcher = await watch();
    const walletId = await depositSeen(3_000_000n);
    await bed.chain.mine(CONFIRMATIONS - 1);
    await caughtUp(watcher);
    expect(await statusOf(walletId)).toBe('seen');
    await bed.chain.mine(1);
    await waitFor('the deposit final by depth', async () => (await statusOf(walletId)) === 'final');
    expect(await mode(watcher, 'depth')).toBe(1);
    expect(await metricValue(watcher, 'chain_finality_lag_blocks')).toBe(CONFIRMATIONS);

    // The node (or the one behind the load balancer) now serves the tag, and its finality is stalled.
    bed.proxy.finalizedTag = { stalledAt: await bed.chain.head() };
    await sleep(500);
    const later = await depositSeen(4_000_000n);
    await bed.chain.mine(CONFIRMATIONS * 10);
    await expectHeldByFinalizedTag(watcher, later);
  });
});
