import { randomUUID } from 'node:crypto';
import { ProviderCheckoutError } from '../provider-errors';
import { abortableSleep } from './abortable-sleep';

/**
 * Provider credentials that outlive one request (Transak's partner access token, valid 7 days)
 * live in Redis, shared by every replica. Transak invalidates the previous token on each refresh,
 * so replicas refreshing on their own would keep logging each other out: one replica at a time
 * mints, under a lock (SET NX PX with a random token, released only by its holder), the others
 * wait for its token. A restarted or added replica reads the stored token and mints nothing. The
 * token before the current one is kept, for webhooks signed just before a refresh. Token values
 * are never logged and never put into an error message.
 */

/** The few Redis commands the store needs; payment-redirect passes its Redis connection behind it. */
export interface SharedKeyValue {
  get(key: string): Promise<string | null>;
  /** SET key value PX ttlMs, with NX when `onlyIfAbsent`; true when it was set. */
  set(key: string, value: string, ttlMs: number, options?: { onlyIfAbsent?: boolean }): Promise<boolean>;
  /** Deletes the key only while it holds `expected` (atomically: a Lua script); true when deleted. */
  deleteIfEquals(key: string, expected: string): Promise<boolean>;
}

export interface ProviderToken {
  value: string;
  /** Unix milliseconds. */
  expiresAt: number;
}

export interface TokenStore {
  /**
   * The token `name` while the stored one is good for longer than the refresh margin; otherwise
   * one replica mints a new one with `mint` (its previous kept beside it) and every caller gets it.
   */
  current(name: string, mint: (signal: AbortSignal) => Promise<ProviderToken>, options: { signal: AbortSignal }): Promise<string>;
  /** The stored current token and the one before it (newest first), without minting: what a webhook may be signed with. */
  known(name: string): Promise<string[]>;
  /** The provider refused `value`: forget it (if it is still the current token), so the next call mints. */
  discard(name: string, value: string): Promise<void>;
}

export interface TokenStoreOptions {
  /** Key prefix of this provider's tokens, e.g. `gw:provider-tokens:transak:`. */
  prefix: string;
  /** A token this close to its expiry is refreshed. */
  refreshBeforeMs?: number;
  /** How long a minting replica holds the lock at most (a crashed one's lock expires). */
  lockTtlMs?: number;
  /** How often a waiting replica looks for the new token. */
  pollMs?: number;
  now?: () => number;
  /** Told each time this process minted a token (metrics); never the value. */
  onMinted?: (name: string) => void;
}

interface StoredTokens {
  current: ProviderToken & { mintedAt: number };
  previous?: ProviderToken;
}

/** Kept past the current token's expiry, so a late webhook signed with it still verifies. */
const KEEP_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;

export class TokenStoreUnavailableError extends ProviderCheckoutError {
  /** `timeout`: the checkout's deadline passed while another replica minted; `token_store`: Redis failed. */
  constructor(message: string, failure: 'timeout' | 'token_store' = 'token_store') {
    super(message, 'unavailable', failure);
    this.name = 'TokenStoreUnavailableError';
  }
}

export function createTokenStore(kv: SharedKeyValue, options: TokenStoreOptions): TokenStore {
  const refreshBeforeMs = options.refreshBeforeMs ?? 60 * 60 * 1000;
  const lockTtlMs = options.lockTtlMs ?? 20_000;
  const pollMs = options.pollMs ?? 50;
  const now = options.now ?? Date.now;
  const keyOf = (name: string) => `${options.prefix}${name}`;
  /**
   * The current token while it is good for longer than the refresh margin (at most half its
   * lifetime, so a short-lived token is not minted anew on every call).
   */
  const freshToken = (stored: { tokens: StoredTokens } | undefined): string | undefined => {
    if (!stored) return undefined;
    const { value, expiresAt, mintedAt } = stored.tokens.current;
    const margin = Math.min(refreshBeforeMs, Math.max(0, (expiresAt - mintedAt) / 2));
    return expiresAt - margin > now() ? value : undefined;
  };

  async function read(name: string): Promise<{ raw: string; tokens: StoredTokens } | undefined> {
    const raw = await storeCall(() => kv.get(keyOf(name)));
    if (raw === null) return undefined;
    try {
      const tokens = JSON.parse(raw) as StoredTokens;
      const { current } = tokens;
      if (typeof current?.value === 'string' && Number.isFinite(current.expiresAt) && Number.isFinite(current.mintedAt))
        return { raw, tokens };
    } catch {
      // Not ours (or from another version): minted anew below.
    }
    return undefined;
  }

  return {
    async current(name, mint, { signal }) {
      for (;;) {
        const token = freshToken(await read(name));
        if (token !== undefined) return token;
        const lockKey = `${keyOf(name)}:lock`;
        const holder = randomUUID();
        if (await storeCall(() => kv.set(lockKey, holder, lockTtlMs, { onlyIfAbsent: true }))) {
          try {
            // Another replica may have minted between the read and the lock.
            const again = await read(name);
            const mintedMeanwhile = freshToken(again);
            if (mintedMeanwhile !== undefined) return mintedMeanwhile;
            const mintedAt = now();
            const minted = await mint(signal);
            const previous = again?.tokens.current;
            const tokens: StoredTokens = {
              current: { value: minted.value, expiresAt: minted.expiresAt, mintedAt },
              ...(previous ? { previous: { value: previous.value, expiresAt: previous.expiresAt } } : {}),
            };
            const ttlMs = Math.max(minted.expiresAt - now(), 0) + KEEP_AFTER_EXPIRY_MS;
            await storeCall(() => kv.set(keyOf(name), JSON.stringify(tokens), ttlMs));
            options.onMinted?.(name);
            return minted.value;
          } finally {
            await kv.deleteIfEquals(lockKey, holder).catch(() => undefined);
          }
        }
        // Another replica is minting: its token is the one to use (a refresh invalidates the old one).
        await abortableSleep(pollMs, signal);
        if (signal.aborted) {
          throw new TokenStoreUnavailableError(`gave up waiting for the ${name} token another replica is minting`, 'timeout');
        }
      }
    },
    async known(name) {
      const stored = await read(name);
      if (!stored) return [];
      return [stored.tokens.current.value, ...(stored.tokens.previous ? [stored.tokens.previous.value] : [])];
    },
    async discard(name, value) {
      const stored = await read(name);
      if (stored?.tokens.current.value === value) await storeCall(() => kv.deleteIfEquals(keyOf(name), stored.raw));
    },
  };
}

async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new TokenStoreUnavailableError(`the shared token store (Redis) failed: ${(error as Error).message}`);
  }
}
