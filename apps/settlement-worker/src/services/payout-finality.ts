import type { FastifyBaseLogger } from 'fastify';
import { finalBoundary, isBlockFinal, nextFinalityState, UNDECIDED_FINALITY, type FinalityState } from '@gateway/domain';
import type { SettlementMetrics } from '../metrics';
import type { AuthorizationUse, SettlementChain } from './settlement-chain';

export interface PayoutFinalityDeps {
  chain: SettlementChain;
  confirmations: number;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
}

/**
 * The chain watcher's finality rule (packages/domain chain-finality), for the transactions that
 * pay the legs: at or below the node's `finalized` block where the node serves the tag, else
 * CONFIRMATIONS deep; in both cases in a block that is still canonical. The node's answer to the
 * tag is read again at every check, so one process follows a node that gains or loses the tag.
 */
export class PayoutFinality {
  private state: FinalityState = UNDECIDED_FINALITY;

  constructor(private readonly deps: PayoutFinalityDeps) {}

  async isFinal(use: AuthorizationUse): Promise<boolean> {
    const head = await this.refresh();
    if (!isBlockFinal(use.blockNumber, head, this.state, this.deps.confirmations)) return false;
    // Final by number; still ours if the block at that height is the one the use was read in.
    return (await this.deps.chain.blockHash(use.blockNumber)) === use.blockHash;
  }

  /** Reads the head and the node's answer to the tag, weighs it, and logs a change of rule; returns the head. */
  async refresh(): Promise<bigint> {
    const { chain, confirmations, metrics, log } = this.deps;
    const [head, answer] = await Promise.all([chain.blockNumber(), chain.finalizedTag()]);
    const previous = this.state;
    this.state = nextFinalityState(previous, answer);
    if (this.state.mode !== previous.mode) {
      if (this.state.mode === 'finalized') {
        log.info(
          { finalizedBlock: this.state.finalized },
          'finality: the node serves the finalized tag; payouts are final at or below its finalized block',
        );
      } else {
        log.warn(
          { refusals: this.state.refusals, confirmations },
          'finality: the node does not serve the finalized tag; payouts are final at CONFIRMATIONS depth until it does',
        );
      }
    } else if (this.state.mode === 'finalized' && this.state.refusals === 1) {
      log.warn(
        { finalizedBlock: this.state.finalized },
        'finality: the node refused the finalized tag; payouts wait on the last finalized block',
      );
    }
    metrics.observeFinality(this.state.mode, head, finalBoundary(head, this.state, confirmations));
    return head;
  }
}
