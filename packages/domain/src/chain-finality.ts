/**
 * When a block (a deposit's, or a payout's) counts as final. One rule for the chain watcher and
 * the settlement worker:
 *  - a node that serves the `finalized` block tag is believed, and only it: a block is final once
 *    it is at or below the finalized block (and, the caller checks, still canonical). Depth never
 *    counts there, because depth keeps growing exactly when the chain's finality stalls;
 *  - a node without the tag (it refuses the query, again and again) falls back to depth:
 *    CONFIRMATIONS blocks on top;
 *  - until the node has either answered the tag or refused it enough times in a row, nothing is
 *    final.
 * The tag is asked again each time (no decision is for good): a node in depth mode that starts
 * answering switches to the tag at once. A node that has served the tag and then refuses it is
 * taken as a passing fault: the last finalized block it reported stays, and finality waits.
 */

export type FinalityMode = 'finalized' | 'depth';

/** What the node answered to `eth_getBlockByNumber("finalized")` this time. */
export type FinalizedTagAnswer = { served: true; finalized: bigint } | { served: false };

export interface FinalityState {
  /** undefined while undecided. */
  readonly mode: FinalityMode | undefined;
  /** The highest finalized block the node has reported: a finalized block never goes back. */
  readonly finalized: bigint | undefined;
  /** Refusals of the tag in a row. */
  readonly refusals: number;
}

/** The head of one round and what the rule makes of it. */
export interface FinalityView {
  head: bigint;
  mode: FinalityMode | undefined;
  /** The newest block the rule treats as final; undefined while the rule is undecided. */
  boundary: bigint | undefined;
}

export const UNDECIDED_FINALITY: FinalityState = { mode: undefined, finalized: undefined, refusals: 0 };

/**
 * Refusals in a row before a node counts as one without the tag. More than one, so a single
 * error answer at boot (a node restarting, a rate limit) does not start the process on depth.
 */
export const TAG_REFUSALS_FOR_DEPTH = 3;

export function nextFinalityState(state: FinalityState, answer: FinalizedTagAnswer): FinalityState {
  if (answer.served) {
    const finalized = state.finalized !== undefined && state.finalized > answer.finalized ? state.finalized : answer.finalized;
    return { mode: 'finalized', finalized, refusals: 0 };
  }
  const refusals = state.refusals + 1;
  if (state.mode === 'finalized') return { ...state, refusals };
  return { ...state, refusals, mode: refusals >= TAG_REFUSALS_FOR_DEPTH ? 'depth' : state.mode };
}

/** The newest block the rule treats as final at this head, or undefined when none is (yet). */
export function finalBoundary(head: bigint, state: FinalityState, confirmations: number): bigint | undefined {
  if (state.mode === 'finalized') return state.finalized;
  if (state.mode === 'depth') return head - BigInt(confirmations);
  return undefined;
}

/** True when the block at `blockNumber` is final, provided it is still on the canonical chain. */
export function isBlockFinal(blockNumber: bigint, head: bigint, state: FinalityState, confirmations: number): boolean {
  const boundary = finalBoundary(head, state, confirmations);
  return boundary !== undefined && blockNumber <= boundary;
}
