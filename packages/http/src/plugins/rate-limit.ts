import fp from 'fastify-plugin';
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore';
import RedisStore from '@fastify/rate-limit/store/RedisStore';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type IORedis from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { errorBody, rateLimitClientOf } from '@gateway/domain';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  /**
   * Counters shared by every replica and both hosts. Without it each process counts on its own
   * (tools and tests that need no Redis).
   */
  redis?: IORedis;
  /** Namespace of the counters in Redis (the app's REDIS_PREFIX). */
  keyPrefix?: string;
}

const UNLIMITED = new Set(['/healthz', '/readyz', '/metrics']);
const STORE_ERROR_LOG_INTERVAL_MS = 10_000;

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

interface RateLimitStore {
  incr(key: string, callback: IncrCallback, timeWindow?: number, max?: number): void;
  child(routeOptions: ChildOptions): RateLimitStore;
}

/** What the plugin gives a route's store; a keyed limit (keyedRateLimit) has no route, so an empty routeInfo. */
interface ChildOptions {
  routeInfo: { method?: string; url?: string };
}

// Clients the in-process fallback remembers per route (LRU): ~100 bytes each.
const FALLBACK_CLIENTS = 50_000;

/**
 * The plugin's Redis store, falling back to an in-process count when Redis does not answer: the
 * limit then holds per replica (each counts what it serves), never open, until Redis answers
 * again. Each request counted without Redis is reported.
 */
function redisStoreWithFallback(redis: IORedis, namespace: string, onError: (error: Error) => void): FastifyRateLimitStoreCtor {
  return class RedisStoreWithFallback implements RateLimitStore {
    private readonly inner: RateLimitStore;
    private readonly fallback: RateLimitStore;

    // Fixed windows: neither continueExceeding nor exponentialBackoff is used here.
    constructor(_settings: unknown, inner?: RateLimitStore, fallback?: RateLimitStore) {
      this.inner = inner ?? (new RedisStore(false, false, redis, namespace) as unknown as RateLimitStore);
      this.fallback = fallback ?? (new LocalStore(false, false, FALLBACK_CLIENTS) as unknown as RateLimitStore);
    }

    incr(key: string, callback: IncrCallback, timeWindow?: number, max?: number): void {
      this.inner.incr(
        key,
        (error, result) => {
          if (!error) return callback(null, result);
          onError(error);
          this.fallback.incr(key, callback, timeWindow, max);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: ChildOptions): RateLimitStore {
      // The Redis store names a route's counters after its method and URL: a keyed limit's are `keyed-<key>`.
      const named =
        routeOptions.routeInfo.method === undefined ? { ...routeOptions, routeInfo: { method: 'keyed', url: '' } } : routeOptions;
      return new RedisStoreWithFallback(
        {},
        this.inner.child(named),
        new LocalStore(false, false, FALLBACK_CLIENTS) as unknown as RateLimitStore,
      );
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

function storeErrorReporter(log: FastifyBaseLogger, registry: Registry): (error: Error) => void {
  const errors = new Counter({
    name: 'rate_limit_store_errors_total',
    help: 'Requests counted against the rate limit in this process only, because the rate-limit store (Redis) did not answer',
    registers: [registry],
  });
  let lastLogged = 0;
  return (error) => {
    errors.inc();
    if (Date.now() - lastLogged < STORE_ERROR_LOG_INTERVAL_MS) return;
    lastLogged = Date.now();
    log.warn({ err: error }, 'rate-limit store unavailable; each replica counts the limit on its own until it answers');
  };
}

/**
 * Per client (as trustProxy resolves its address): an IPv4 address, or an IPv6 /64, since a host
 * may use any address of its /64 (rateLimitClientOf). Shared through Redis when one is given.
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, options: RateLimitOptions) => {
  const { redis } = options;
  const reportError = storeErrorReporter(app.log, app.metrics);
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowMs,
    keyGenerator: (request) => rateLimitClientOf(request.ip),
    ...(redis ? { store: redisStoreWithFallback(redis, `${options.keyPrefix ?? 'gw'}:rate-limit:`, reportError) } : {}),
    allowList: (request) => UNLIMITED.has(request.url),
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      ...errorBody('rate_limited', `too many requests: at most ${context.max} per ${context.after}; retry after the Retry-After delay`),
    }),
  });
});

export interface KeyedRateLimit {
  max: number;
  windowMs: number;
  /** What is counted: something the handler has found (a wallet), not the client. */
  key: (request: FastifyRequest) => string;
}

export type KeyedRateLimitCheck = (request: FastifyRequest) => Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;

/**
 * A limit on an action rather than on a client (one resend per wallet per window): the handler
 * counts a request once it knows what the request acts on, so requests refused before that count
 * nothing. The request limits' store (Redis, shared by every replica, and this process's own count
 * while Redis does not answer) under `<prefix>:rate-limit:keyed-<key>`. Needs createServer's
 * rate limit.
 */
export function keyedRateLimit(app: FastifyInstance, limit: KeyedRateLimit): KeyedRateLimitCheck {
  const count = app.createRateLimit({ max: limit.max, timeWindow: limit.windowMs, keyGenerator: limit.key });
  return async (request) => {
    const counted = await count(request);
    if (counted.isAllowed || !counted.isExceeded) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, counted.ttlInSeconds) };
  };
}
