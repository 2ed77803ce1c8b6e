/** Blocks per eth_getLogs call unless configured (MAX_BLOCK_RANGE): what most hosted Polygon nodes accept. */
export const DEFAULT_MAX_BLOCK_RANGE = 2000;

// Served ranges in a row before the width doubles again: a node that refused a width once
// (its limit, or a dense stretch of logs) is not asked for it again at every other call.
const SERVED_BEFORE_WIDENING = 10;

/**
 * How many blocks one eth_getLogs call asks for. Nodes limit the range (or the results) and
 * say so only by refusing a call, each in its own words; so: at most `max` blocks, halved each
 * time the node refuses a range, doubled back towards `max` after a run of ranges it served.
 * One instance per node connection remembers what the node accepted.
 */
export class LogRangeWidth {
  private width: bigint;
  private servedInARow = 0;
  private readonly max: bigint;

  constructor(maxBlocks: number) {
    if (!Number.isInteger(maxBlocks) || maxBlocks < 1) throw new Error(`a log range is at least one block, not ${maxBlocks}`);
    this.max = BigInt(maxBlocks);
    this.width = this.max;
  }

  /** The last block of the range starting at `from`, at most `last`. */
  end(from: bigint, last: bigint): bigint {
    const end = from + this.width - 1n;
    return end < last ? end : last;
  }

  /** The node refused the range: the next one is half as wide. False when one block was refused (nothing left to split). */
  refused(): boolean {
    this.servedInARow = 0;
    if (this.width <= 1n) return false;
    this.width /= 2n;
    return true;
  }

  /** The node served the range. */
  served(): void {
    this.servedInARow += 1;
    if (this.servedInARow < SERVED_BEFORE_WIDENING || this.width >= this.max) return;
    this.servedInARow = 0;
    const doubled = this.width * 2n;
    this.width = doubled < this.max ? doubled : this.max;
  }
}

export interface LogSearch<T> {
  from: bigint;
  to: bigint;
  width: LogRangeWidth;
  /** One eth_getLogs call over `from`..`to` (inclusive); what it found, or null. */
  read: (from: bigint, to: bigint) => Promise<T | null>;
  /** True when the error is the node refusing the range (it answered), not a failure to reach it. */
  isRefusal: (error: unknown) => boolean;
}

/** Reads `from`..`to` range by range, oldest first, and stops at the first range where `read` finds something. */
export async function searchLogRanges<T>({ from, to, width, read, isRefusal }: LogSearch<T>): Promise<T | null> {
  let start = from;
  while (start <= to) {
    const end = width.end(start, to);
    let found: T | null;
    try {
      found = await read(start, end);
    } catch (error) {
      if (isRefusal(error) && width.refused()) continue;
      throw error;
    }
    width.served();
    if (found !== null) return found;
    start = end + 1n;
  }
  return null;
}
