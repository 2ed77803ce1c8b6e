import {
  finalBoundary,
  nextFinalityState,
  UNDECIDED_FINALITY,
  type FinalityState,
  type FinalityView,
  type FinalizedTagAnswer,
} from '@gateway/domain';

export interface FinalityLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface FinalityFollowerOptions {
  /** What becomes final by the rule ('deposits', 'payouts'), as the log lines name it. */
  subject: string;
  confirmations: number;
  log: FinalityLog;
}

/**
 * Follows which finality rule (packages/domain chain-finality) applies to one node: its answer
 * to the `finalized` tag is weighed every round, since a node can gain or lose the tag while the
 * process runs. A change of rule is logged, because "final" then means something else.
 */
export class FinalityFollower {
  private current: FinalityState = UNDECIDED_FINALITY;

  constructor(private readonly options: FinalityFollowerOptions) {}

  get state(): FinalityState {
    return this.current;
  }

  observe(head: bigint, answer: FinalizedTagAnswer): FinalityView {
    const { subject, confirmations, log } = this.options;
    const previous = this.current;
    const state = nextFinalityState(previous, answer);
    this.current = state;
    if (state.mode !== previous.mode) {
      if (state.mode === 'finalized') {
        log.info(
          { finalizedBlock: state.finalized },
          `finality: the node serves the finalized tag; ${subject} are final at or below its finalized block`,
        );
      } else {
        log.warn(
          { refusals: state.refusals, confirmations },
          `finality: the node does not serve the finalized tag; ${subject} are final at CONFIRMATIONS depth until it does`,
        );
      }
    } else if (state.mode === 'finalized' && state.refusals === 1) {
      log.warn(
        { finalizedBlock: state.finalized },
        `finality: the node refused the finalized tag; ${subject} wait on the last finalized block`,
      );
    }
    return { head, mode: state.mode, boundary: finalBoundary(head, state, confirmations) };
  }
}
