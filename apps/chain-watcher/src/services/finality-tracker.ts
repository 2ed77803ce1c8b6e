import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import type { DepositBlock, DepositRepository } from '@gateway/db';
import { FinalityFollower } from '@gateway/chain';
import type { FinalityView } from '@gateway/domain';
import type { WatcherMetrics } from '../metrics';
import type { ChainReader, ChainTip } from './chain-reader';
import { inTransaction } from '@gateway/db';

export interface FinalityUpdate {
  orphaned: number;
  /** Deposits that became final, committed; their settlement jobs are the caller's to add. */
  finalIds: string[];
}

export interface FinalityTrackerDeps {
  pool: Pool;
  chain: ChainReader;
  deposits: DepositRepository;
  confirmations: number;
  metrics: WatcherMetrics;
  log: FastifyBaseLogger;
}

/**
 * Walks the unfinal deposits forward each round. Each block holding one is looked up again on
 * the chain: a block whose hash is no longer canonical was reorged away, and its deposits become
 * `orphaned` (never forwarded; a later read that finds the same log brings it back to `seen`);
 * a canonical block the finality rule (packages/domain chain-finality: the node's `finalized`
 * block where it serves the tag, CONFIRMATIONS depth only where it does not) counts as final
 * makes its deposits `final`. Checking every unfinal block each round also catches a reorg the
 * cursor itself did not see (e.g. after an operator moved the cursor back).
 */
export class FinalityTracker {
  private readonly follower: FinalityFollower;

  constructor(private readonly deps: FinalityTrackerDeps) {
    this.follower = new FinalityFollower({ subject: 'deposits', confirmations: deps.confirmations, log: deps.log });
  }

  /** Weighs this round's answer to the finalized tag. */
  observe(tip: ChainTip): FinalityView {
    const view = this.follower.observe(tip.head, tip.finalizedTag);
    this.deps.metrics.observeFinality(view, this.follower.state.finalized);
    return view;
  }

  async update(view: FinalityView): Promise<FinalityUpdate> {
    const blocks = await this.deps.deposits.unfinalBlocks();
    if (blocks.length === 0) return { orphaned: 0, finalIds: [] };
    const canonical = await this.deps.chain.blockHashes([...new Set(blocks.map((block) => block.blockNumber))]);
    const gone: DepositBlock[] = [];
    const final: DepositBlock[] = [];
    for (const block of blocks) {
      const hash = canonical.get(block.blockNumber);
      // No block at that height (yet): a node behind us, or a chain shortened by a reorg that
      // has not regrown. Decide once there is a block to compare with.
      if (hash === undefined) continue;
      if (hash !== block.blockHash) gone.push(block);
      else if (view.boundary !== undefined && block.blockNumber <= view.boundary) final.push(block);
    }
    if (gone.length === 0 && final.length === 0) return { orphaned: 0, finalIds: [] };
    const { orphanedIds, finalIds } = await inTransaction(this.deps.pool, async (client) => ({
      orphanedIds: await this.deps.deposits.markOrphaned(client, gone),
      finalIds: await this.deps.deposits.markFinal(client, final),
    }));
    this.deps.metrics.deposits.inc({ status: 'orphaned' }, orphanedIds.length);
    this.deps.metrics.deposits.inc({ status: 'final' }, finalIds.length);
    return { orphaned: orphanedIds.length, finalIds };
  }
}
