import { sleep, waitFor } from '@gateway/testkit';
import type { FastifyInstance } from 'fastify';
import { settlementJobId } from '@gateway/queue';
import { FINALIZED_LAG } from './local-chain';
import { depositsOf, readUpToHead, type WatcherBed } from './watcher-fixture';

/**
 * A deposit whose transaction a reorg really dropped: seen, orphaned once the chain is reverted
 * under it, and still orphaned, with no settlement job, once the finalized block has passed it.
 * `pay`: the transfer into the wallet (of either USDC).
 */
export async function expectDroppedDepositOrphaned(
  bed: WatcherBed,
  app: FastifyInstance,
  walletId: string,
  pay: () => Promise<unknown>,
): Promise<void> {
  const statusOf = async () => (await depositsOf(bed.db.pool, walletId))[0]?.status;
  const snapshot = await bed.chain.snapshot();
  await pay();
  await waitFor('the deposit seen', async () => (await statusOf()) === 'seen');

  await bed.chain.revert(snapshot);
  await bed.chain.mine(2);
  await waitFor('the deposit orphaned', async () => (await statusOf()) === 'orphaned');
  await bed.chain.mine(FINALIZED_LAG + 2);
  await readUpToHead(app, bed.chain);
  await sleep(500);
  expect(await statusOf()).toBe('orphaned');
  const [deposit] = await depositsOf(bed.db.pool, walletId);
  expect(await bed.queue.getJob(settlementJobId(deposit!.id))).toBeUndefined();
}
