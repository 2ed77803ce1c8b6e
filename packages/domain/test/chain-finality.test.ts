import {
  finalBoundary,
  isBlockFinal,
  nextFinalityState,
  TAG_REFUSALS_FOR_DEPTH,
  UNDECIDED_FINALITY,
  type FinalityState,
  type FinalizedTagAnswer,
} from '../src/chain-finality';

const served = (finalized: bigint): FinalizedTagAnswer => ({ served: true, finalized });
const refused: FinalizedTagAnswer = { served: false };
const replay = (answers: FinalizedTagAnswer[], from: FinalityState = UNDECIDED_FINALITY) => answers.reduce(nextFinalityState, from);

describe('isBlockFinal where the node serves the finalized tag', () => {
  const state = replay([served(100n)]);

  it('is final at or below the finalized block, however shallow', () => {
    expect(isBlockFinal(100n, 101n, state, 64)).toBe(true);
    expect(isBlockFinal(101n, 101n, state, 64)).toBe(false);
  });

  it('is not final above the finalized block, however deep (finality stalled)', () => {
    expect(isBlockFinal(101n, 1_000_000n, state, 64)).toBe(false);
    expect(finalBoundary(1_000_000n, state, 64)).toBe(100n);
  });
});

describe('isBlockFinal on a node without the tag', () => {
  const state = replay(Array(TAG_REFUSALS_FOR_DEPTH).fill(refused));

  it('falls back to depth once the tag is refused enough times in a row', () => {
    expect(state.mode).toBe('depth');
    expect(isBlockFinal(100n, 163n, state, 64)).toBe(false);
    expect(isBlockFinal(100n, 164n, state, 64)).toBe(true);
  });

  it('finalizes nothing while undecided (fewer refusals than that)', () => {
    const undecided = replay(Array(TAG_REFUSALS_FOR_DEPTH - 1).fill(refused));
    expect(undecided.mode).toBeUndefined();
    expect(isBlockFinal(0n, 1_000_000n, undecided, 64)).toBe(false);
    expect(finalBoundary(1_000_000n, undecided, 64)).toBeUndefined();
  });

  it('a refusal between answers starts the count again', () => {
    const answers = [refused, refused, served(5n), refused, refused];
    expect(replay(answers).mode).toBe('finalized');
    expect(replay([refused, refused, refused, served(7n)])).toEqual({ mode: 'finalized', finalized: 7n, refusals: 0 });
  });
});

describe('nextFinalityState', () => {
  it('switches a depth node to the tag as soon as it answers it', () => {
    const depth = replay(Array(TAG_REFUSALS_FOR_DEPTH).fill(refused));
    expect(nextFinalityState(depth, served(42n))).toEqual({ mode: 'finalized', finalized: 42n, refusals: 0 });
  });

  it('never falls back to depth after the tag was served: refusals keep the last finalized block', () => {
    const state = replay([served(100n), ...Array(TAG_REFUSALS_FOR_DEPTH * 10).fill(refused)]);
    expect(state).toMatchObject({ mode: 'finalized', finalized: 100n });
    expect(isBlockFinal(101n, 10_000n, state, 64)).toBe(false);
  });

  it('never moves the finalized block back (a node behind another one)', () => {
    expect(replay([served(100n), served(90n)]).finalized).toBe(100n);
    expect(replay([served(100n), served(120n)]).finalized).toBe(120n);
  });
});
