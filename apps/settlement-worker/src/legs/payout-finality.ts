import type { FastifyBaseLogger } from 'fastify';
import { FinalityFollower } from '@gateway/chain';
import { isBlockFinal, type FinalityView } from '@gateway/domain';
import type { SettlementMetrics } from '../metrics';
import type { AuthorizationUse, SettlementChainClient } from '../chain/settlement-chain-client';

export interface PayoutFinalityDeps {
  chain: SettlementChainClient;
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
  private readonly follower: FinalityFollower;

  constructor(private readonly deps: PayoutFinalityDeps) {
    this.follower = new FinalityFollower({ subject: 'payouts', confirmations: deps.confirmations, log: deps.log });
  }

  async isFinal(use: AuthorizationUse): Promise<boolean> {
    const { head } = await this.refresh();
    if (!isBlockFinal(use.blockNumber, head, this.follower.state, this.deps.confirmations)) return false;
    // Final by number; still ours if the block at that height is the one the use was read in.
    return (await this.deps.chain.blockHash(use.blockNumber)) === use.blockHash;
  }

  /** Reads the head and the node's answer to the tag, and weighs it. */
  async refresh(): Promise<FinalityView> {
    const { chain, metrics } = this.deps;
    const [head, answer] = await Promise.all([chain.blockNumber(), chain.finalizedTag()]);
    const view = this.follower.observe(head, answer);
    metrics.finality.observe(view);
    return view;
  }
}
