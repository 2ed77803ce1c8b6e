import type { SharedKeyValue } from '../../src/support/shared-token-store';

/**
 * The shared store's three commands on a map, for adapter tests in this package (which has no
 * Redis client); payment-redirect's tests run the store on a real Redis.
 */
export function memorySharedStore(now: () => number = Date.now): SharedKeyValue {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) entries.delete(key);
    return entries.get(key);
  };
  return {
    get: async (key) => live(key)?.value ?? null,
    async set(key, value, ttlMs, options) {
      if (options?.onlyIfAbsent && live(key)) return false;
      entries.set(key, { value, expiresAt: now() + ttlMs });
      return true;
    },
    async deleteIfEquals(key, expected) {
      return live(key)?.value === expected && entries.delete(key);
    },
  };
}
