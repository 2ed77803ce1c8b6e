import type { Pool } from 'pg';
import type { DepositBlock, DepositRepository } from '@gateway/db';
import { isFinalAt, type TipView } from '../chain-rules';
import type { WatcherMetrics } from '../metrics';
import type { ChainReader } from './chain-reader';
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
}

/**
 * Walks the unfinal deposits forward each round. Each block holding one is looked up again on
 * the chain: a block whose hash is no longer canonical was reorged away, and its deposits become
 * `orphaned` (never forwarded; a later read that finds the same log brings it back to `seen`);
 * a canonical block deep enough, or at or below the chain's `finalized` block, makes its
 * deposits `final`. Checking every unfinal block each round also catches a reorg the cursor
 * itself did not see (e.g. after an operator moved the cursor back).
 */
export class FinalityTracker {
  constructor(private readonly deps: FinalityTrackerDeps) {}

  async update(tip: TipView): Promise<FinalityUpdate> {
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
      else if (isFinalAt(block.blockNumber, tip, this.deps.confirmations)) final.push(block);
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
