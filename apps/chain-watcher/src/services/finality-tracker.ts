import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import type { Address } from 'viem';
import type { DepositBlock, DepositRepository, NewDeposit, RecordedDeposit } from '@gateway/db/chain-watcher';
import { FinalityFollower } from '@gateway/chain';
import type { FinalityView } from '@gateway/domain';
import type { WatcherMetrics } from '../metrics';
import type { ChainReader, ChainTip } from './chain-reader';
import { inTransaction } from '@gateway/db/chain-watcher';

export interface FinalityUpdate {
  orphaned: number;
  /** Orphaned deposits whose transaction is in a canonical block again, back to `seen`. */
  restored: number;
  /** Deposits that became final, committed; their settlement jobs are the caller's to add. */
  finalIds: string[];
}

export interface FinalityTrackerDeps {
  pool: Pool;
  chain: ChainReader;
  deposits: DepositRepository;
  /** The settled token (lower-case): a deposit row without a token (migration 023) is in it. */
  token: Address;
  confirmations: number;
  metrics: WatcherMetrics;
  log: FastifyBaseLogger;
}

/**
 * Where a deposit's transfer is by its transaction's receipt: nowhere (no receipt, or a receipt
 * without the transfer), in a canonical block (the receipt's block hash agrees with a block-hash
 * read), or unsure (the two reads disagree: decided on a later round).
 */
type Located = { found: 'gone' } | { found: 'unsure' } | { found: 'canonical'; deposit: NewDeposit };

/**
 * Walks the unfinal deposits forward each round. Each block holding one is looked up again on
 * the chain: a canonical block the finality rule (packages/domain chain-finality: the node's
 * `finalized` block where it serves the tag, CONFIRMATIONS depth only where it does not) counts
 * as final makes its deposits `final`. A block answered with another hash is not believed on
 * that one answer (behind a load balancer one backend can lag on another fork): each of its
 * deposits' transactions is looked up by its receipt, and the deposits become `orphaned` only
 * when no receipt has them; a transaction found in another canonical block moves its deposit
 * there; one found where it was recorded leaves it `seen` (the answers disagree: the next round
 * asks again). An orphaned deposit is looked up the same way every round until the finalized
 * block passes it, and comes back to `seen` when its transaction is in a canonical block.
 * Checking every unfinal block each round also catches a reorg the cursor itself did not see
 * (e.g. after an operator moved the cursor back).
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
    const { deposits, chain, metrics } = this.deps;
    const [blocks, orphans] = await Promise.all([deposits.unfinalBlocks(), deposits.orphansAbove(view.boundary)]);
    if (blocks.length === 0 && orphans.length === 0) return { orphaned: 0, restored: 0, finalIds: [] };
    const canonical = await chain.blockHashes([...new Set(blocks.map((block) => block.blockNumber))]);
    const suspect: DepositBlock[] = [];
    const final: DepositBlock[] = [];
    for (const block of blocks) {
      const hash = canonical.get(block.blockNumber);
      // No block at that height (yet): a node behind us, or a chain shortened by a reorg that
      // has not regrown. Decide once there is a block to compare with.
      if (hash === undefined) continue;
      if (hash !== block.blockHash) suspect.push(block);
      else if (view.boundary !== undefined && block.blockNumber <= view.boundary) final.push(block);
    }
    // One transfer is claimed by one deposit row, however many rows ask for it this round.
    const claimed = new Set<string>();
    const { gone, moved } = await this.confirmGone(suspect, claimed);
    const back: NewDeposit[] = [];
    for (const orphan of orphans) {
      const located = await this.locate(orphan, claimed);
      if (located.found === 'canonical') back.push(located.deposit);
    }
    if (gone.length === 0 && moved.length === 0 && back.length === 0 && final.length === 0) {
      return { orphaned: 0, restored: 0, finalIds: [] };
    }
    const { movedIds, restoredIds, orphanedIds, finalIds } = await inTransaction(this.deps.pool, async (client) => ({
      // Moved rows first: their recorded block is the one orphaned next.
      movedIds: await deposits.recordSeen(client, moved),
      restoredIds: await deposits.recordSeen(client, back),
      orphanedIds: await deposits.markOrphaned(client, gone),
      finalIds: await deposits.markFinal(client, final),
    }));
    metrics.deposits.inc({ status: 'seen' }, movedIds.length);
    metrics.deposits.inc({ status: 'restored' }, restoredIds.length);
    metrics.deposits.inc({ status: 'orphaned' }, orphanedIds.length);
    metrics.deposits.inc({ status: 'final' }, finalIds.length);
    return { orphaned: orphanedIds.length, restored: restoredIds.length, finalIds };
  }

  /**
   * The suspect blocks whose deposits the receipts confirm are gone from them: every deposit's
   * transaction has no receipt with its transfer, or is in another canonical block (`moved`).
   */
  private async confirmGone(suspect: DepositBlock[], claimed: Set<string>): Promise<{ gone: DepositBlock[]; moved: NewDeposit[] }> {
    const gone: DepositBlock[] = [];
    const moved: NewDeposit[] = [];
    const inBlocks = await this.deps.deposits.seenInBlocks(suspect);
    for (const block of suspect) {
      const recorded = inBlocks.filter((d) => d.blockNumber === block.blockNumber && d.blockHash === block.blockHash);
      const elsewhere: NewDeposit[] = [];
      let confirmed = true;
      for (const deposit of recorded) {
        const located = await this.locate(deposit, claimed);
        if (located.found === 'gone') continue;
        if (located.found === 'unsure' || located.deposit.blockHash === deposit.blockHash) {
          confirmed = false;
          break;
        }
        elsewhere.push(located.deposit);
      }
      if (!confirmed) {
        this.deps.log.warn(
          { blockNumber: block.blockNumber, recordedHash: block.blockHash },
          'the RPC answered another hash for a deposit block, but a receipt still places the deposit there; not orphaned, asked again ' +
            'next round',
        );
        continue;
      }
      gone.push(block);
      moved.push(...elsewhere);
    }
    return { gone, moved };
  }

  private async locate(deposit: RecordedDeposit, claimed: Set<string>): Promise<Located> {
    const { chain, token } = this.deps;
    // Each deposit is looked up in its own token's logs: a reorg orphans either USDC alike.
    const depositToken = (deposit.token ?? token) as Address;
    const place = await chain.transactionPlace(deposit.txHash as `0x${string}`, depositToken);
    if (!place) return { found: 'gone' };
    const matches = place.transfers.filter(
      (log) =>
        log.to === deposit.walletAddress &&
        log.from === deposit.fromAddress &&
        log.value === deposit.amount &&
        !claimed.has(`${log.txHash}:${log.logIndex}`),
    );
    const transfer = matches.find((log) => log.logIndex === deposit.logIndex) ?? matches[0];
    if (!transfer) return { found: 'gone' };
    // The receipt names a block; believed once a block-hash read of that height agrees.
    const block = await chain.blockAt(place.blockNumber);
    if (block?.hash !== place.blockHash) return { found: 'unsure' };
    claimed.add(`${transfer.txHash}:${transfer.logIndex}`);
    return {
      found: 'canonical',
      deposit: {
        ...deposit,
        token: depositToken,
        logIndex: transfer.logIndex,
        blockNumber: place.blockNumber,
        blockHash: place.blockHash,
        blockTime: block.time,
      },
    };
  }
}
