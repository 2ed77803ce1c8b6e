import { LogRangeWidth, searchLogRanges } from '../src/log-ranges';

class RangeRefused extends Error {}

/** A node that refuses ranges wider than `limit` blocks and has a log at each block of `logsAt`. */
function node(limit: bigint, logsAt: bigint[]) {
  const calls: [bigint, bigint][] = [];
  const read = async (from: bigint, to: bigint) => {
    calls.push([from, to]);
    if (to - from + 1n > limit) throw new RangeRefused();
    return logsAt.find((block) => block >= from && block <= to) ?? null;
  };
  return { calls, read, isRefusal: (error: unknown) => error instanceof RangeRefused };
}

describe('searchLogRanges', () => {
  it('halves a refused range until the node serves it, from the first block on, and stops where it finds the log', async () => {
    const { calls, read, isRefusal } = node(60n, [1_234n]);
    const found = await searchLogRanges({ from: 1_000n, to: 5_000n, width: new LogRangeWidth(200), read, isRefusal });
    expect(found).toBe(1_234n);
    expect(calls.slice(0, 3)).toEqual([
      [1_000n, 1_199n],
      [1_000n, 1_099n],
      [1_000n, 1_049n],
    ]);
    expect(calls.at(-1)).toEqual([1_200n, 1_249n]);
  });

  it('covers every block exactly once when nothing is found, and ends at the last block', async () => {
    const { calls, read, isRefusal } = node(1_000n, []);
    expect(await searchLogRanges({ from: 0n, to: 2_500n, width: new LogRangeWidth(1_000), read, isRefusal })).toBeNull();
    expect(calls).toEqual([
      [0n, 999n],
      [1_000n, 1_999n],
      [2_000n, 2_500n],
    ]);
  });

  it('gives up when even one block is refused, and never swallows other errors', async () => {
    const { read, isRefusal } = node(0n, []);
    await expect(searchLogRanges({ from: 0n, to: 10n, width: new LogRangeWidth(8), read, isRefusal })).rejects.toBeInstanceOf(RangeRefused);
    const down = async () => Promise.reject(new Error('node unreachable'));
    await expect(searchLogRanges({ from: 0n, to: 10n, width: new LogRangeWidth(8), read: down, isRefusal })).rejects.toThrow(
      'node unreachable',
    );
  });
});

describe('LogRangeWidth', () => {
  it('doubles back towards the maximum only after a run of served ranges', () => {
    const width = new LogRangeWidth(100);
    width.refused();
    width.refused();
    expect(width.end(0n, 1_000n)).toBe(24n);
    for (let i = 0; i < 9; i += 1) width.served();
    expect(width.end(0n, 1_000n)).toBe(24n);
    width.served();
    expect(width.end(0n, 1_000n)).toBe(49n);
    for (let i = 0; i < 30; i += 1) width.served();
    expect(width.end(0n, 1_000n)).toBe(99n);
  });
});
