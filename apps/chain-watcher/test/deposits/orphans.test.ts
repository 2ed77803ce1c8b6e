import { sleep, waitFor } from '@gateway/testkit';
import type { FastifyInstance } from 'fastify';
import type { Hash } from 'viem';
import { settlementJobId } from '@gateway/queue';
import { FINALIZED_LAG } from '../support/local-chain';
import { insertWallet } from '../support/wallets';
import { cursorBlock, depositsOf, metricValue, useWatcherBed } from '../support/watcher-fixture';
import { expectDroppedDepositOrphaned } from '../support/dropped-deposit';

// Behind a load balancer one backend can lag on another fork: it answers one block-hash query (or
// one receipt query) from a chain the others have left. A deposit is orphaned only when a second
// read, its transaction's receipt, agrees; an orphaned deposit is read again every round until the
// finalized block passes it, and comes back when its transaction is in a canonical block.

jest.setTimeout(60_000);

const bed = useWatcherBed('watcher_orphans', { throughProxy: true });
let app: FastifyInstance;

beforeAll(async () => {
  app = await bed.watch();
});

async function statusOf(walletId: string): Promise<string | undefined> {
  return (await depositsOf(bed.db.pool, walletId))[0]?.status;
}

/** A deposit seen, with the cursor a few blocks past it, so only the finality pass asks for its block. */
async function depositBehindTheCursor(amount: bigint): Promise<{ walletId: string; block: bigint; txHash: Hash }> {
  const wallet = await insertWallet(bed.db.pool);
  const receipt = await bed.chain.sendUsdc(wallet.address, amount);
  await bed.chain.mine(3);
  const head = await bed.chain.head();
  await waitFor(
    'the deposit seen and the cursor at the head',
    async () => (await statusOf(wallet.id)) === 'seen' && cursorBlock(app) >= head,
  );
  return { walletId: wallet.id, block: receipt.blockNumber, txHash: receipt.transactionHash };
}

async function finalAndQueued(walletId: string): Promise<void> {
  await bed.chain.mine(FINALIZED_LAG);
  await waitFor('the deposit final', async () => (await statusOf(walletId)) === 'final');
  const [deposit] = await depositsOf(bed.db.pool, walletId);
  const job = await waitFor('its settlement job', async () => bed.queue.getJob(settlementJobId(deposit!.id)));
  expect(job.data).toEqual({ depositId: deposit!.id });
}

it('one wrong block-hash answer does not orphan a deposit: it becomes final and is queued for settlement', async () => {
  const orphanedBefore = await metricValue(app, 'chain_watcher_deposits_total', { status: 'orphaned' });
  const { walletId, block } = await depositBehindTheCursor(5_000_000n);

  const misreported = bed.proxy.misreported;
  bed.proxy.misreportBlockHash(block);
  await waitFor('the wrong answer given', async () => bed.proxy.misreported > misreported);
  await sleep(500);
  expect(await statusOf(walletId)).toBe('seen');
  expect(await metricValue(app, 'chain_watcher_deposits_total', { status: 'orphaned' })).toBe(orphanedBefore);

  await finalAndQueued(walletId);
});

it('a deposit orphaned on two answers that agree (a backend on another fork) comes back when the chain shows it again, and settles', async () => {
  const orphanedBefore = await metricValue(app, 'chain_watcher_deposits_total', { status: 'orphaned' });
  const { walletId, block, txHash } = await depositBehindTheCursor(6_000_000n);

  const misreported = bed.proxy.misreported;
  bed.proxy.hideReceipt(txHash);
  bed.proxy.misreportBlockHash(block);
  await waitFor('the wrong block hash given', async () => bed.proxy.misreported > misreported);
  // Orphaned on the two answers (counted: an alert rule reads it), then read again and brought back.
  await waitFor(
    'the orphan counted',
    async () => (await metricValue(app, 'chain_watcher_deposits_total', { status: 'orphaned' })) === orphanedBefore + 1,
  );
  await waitFor('the deposit back to seen', async () => (await statusOf(walletId)) === 'seen');
  expect(await metricValue(app, 'chain_watcher_deposits_total', { status: 'restored' })).toBe(1);
  const [deposit] = await depositsOf(bed.db.pool, walletId);
  const { timestamp } = await bed.chain.publicClient.getBlock({ blockNumber: block });
  expect(deposit).toMatchObject({
    txHash,
    blockNumber: block.toString(),
    blockHash: await bed.chain.blockHash(block),
    blockTime: new Date(Number(timestamp) * 1000),
  });

  await finalAndQueued(walletId);
});

it("dates a deposit by its block's time, from the block's header when the node gives its logs without it", async () => {
  bed.proxy.logsWithoutBlockTime = true;
  try {
    const { walletId, block } = await depositBehindTheCursor(8_000_000n);
    const { timestamp } = await bed.chain.publicClient.getBlock({ blockNumber: block });
    expect((await depositsOf(bed.db.pool, walletId))[0]?.blockTime).toEqual(new Date(Number(timestamp) * 1000));
  } finally {
    bed.proxy.logsWithoutBlockTime = false;
  }
});

it('a deposit whose transaction a reorg really dropped stays orphaned, once the finalized block has passed it', async () => {
  const wallet = await insertWallet(bed.db.pool);
  await expectDroppedDepositOrphaned(bed, app, wallet.id, () => bed.chain.sendUsdc(wallet.address, 7_000_000n));
});
