/** The watcher's rules about depth and time, kept free of I/O so they can be read and tested alone. */

export interface TipView {
  head: bigint;
  finalized: bigint | undefined;
}

/**
 * A deposit whose block is still canonical is final once `confirmations` blocks sit on top of it,
 * or once the chain's own `finalized` block has reached it, whichever comes first.
 */
export function isFinalAt(blockNumber: bigint, tip: TipView, confirmations: number): boolean {
  if (tip.head - blockNumber >= BigInt(confirmations)) return true;
  return tip.finalized !== undefined && tip.finalized >= blockNumber;
}

/**
 * After a reorg at `cursorBlock`, the highest block that the same finality rule says cannot have
 * changed; scanning again from there is safe, because reading a range twice writes nothing twice.
 */
export function reorgFloor(cursorBlock: bigint, tip: TipView, confirmations: number): bigint {
  const byDepth = tip.head - BigInt(confirmations);
  const settled = tip.finalized !== undefined && tip.finalized > byDepth ? tip.finalized : byDepth;
  const floor = settled < cursorBlock - 1n ? settled : cursorBlock - 1n;
  return floor < 0n ? 0n : floor;
}

/** Exponential backoff with jitter: about base·2^(n-1), capped, never in lockstep with other replicas. */
export function backoffDelayMs(consecutiveFailures: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exponent = Math.min(Math.max(consecutiveFailures - 1, 0), 30);
  const ceiling = Math.min(maxMs, baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
