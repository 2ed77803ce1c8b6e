/** The watcher's rules about reorgs and retries, kept free of I/O so they can be read and tested alone. */
import type { FinalityView } from '@gateway/domain';

/**
 * After a reorg at `cursorBlock`, the highest block that cannot have changed: the finality
 * boundary (depth while the rule is still undecided, only to pick where to read again from).
 * Scanning again from there is safe, because reading a range twice writes nothing twice.
 */
export function reorgFloor(cursorBlock: bigint, view: FinalityView, confirmations: number): bigint {
  const settled = view.boundary ?? view.head - BigInt(confirmations);
  const floor = settled < cursorBlock - 1n ? settled : cursorBlock - 1n;
  return floor < 0n ? 0n : floor;
}

/** Exponential backoff with jitter: about base·2^(n-1), capped, never in lockstep with other replicas. */
export function backoffDelayMs(consecutiveFailures: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exponent = Math.min(Math.max(consecutiveFailures - 1, 0), 30);
  const ceiling = Math.min(maxMs, baseMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
