import fp from 'fastify-plugin';
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import RedisStore from '@fastify/rate-limit/store/RedisStore';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type IORedis from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { rateLimitClientOf } from '@gateway/domain';

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
  child(routeOptions: unknown): RateLimitStore;
}

/**
 * The plugin's Redis store, failing open: when Redis does not answer, the request goes through
 * (a payment matters more than a rate limit), and each such request is reported.
 */
function failOpenRedisStore(redis: IORedis, namespace: string, onError: (error: Error) => void): FastifyRateLimitStoreCtor {
  return class FailOpenRedisStore implements RateLimitStore {
    private readonly inner: RateLimitStore;

    // Fixed windows: neither continueExceeding nor exponentialBackoff is used here.
    constructor(_settings: unknown, inner?: RateLimitStore) {
      this.inner = inner ?? (new RedisStore(false, false, redis, namespace) as unknown as RateLimitStore);
    }

    incr(key: string, callback: IncrCallback, timeWindow?: number, max?: number): void {
      this.inner.incr(
        key,
        (error, result) => {
          if (error) onError(error);
          callback(error, result);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: unknown): RateLimitStore {
      return new FailOpenRedisStore({}, this.inner.child(routeOptions));
    }
  } as unknown as FastifyRateLimitStoreCtor;
}

function storeErrorReporter(log: FastifyBaseLogger, registry: Registry): (error: Error) => void {
  const errors = new Counter({
    name: 'rate_limit_store_errors_total',
    help: 'Requests let through unlimited because the rate-limit store (Redis) did not answer',
    registers: [registry],
  });
  let lastLogged = 0;
  return (error) => {
    errors.inc();
    if (Date.now() - lastLogged < STORE_ERROR_LOG_INTERVAL_MS) return;
    lastLogged = Date.now();
    log.warn({ err: error }, 'rate-limit store unavailable; requests pass unlimited until it answers');
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
    skipOnError: true,
    keyGenerator: (request) => rateLimitClientOf(request.ip),
    ...(redis ? { store: failOpenRedisStore(redis, `${options.keyPrefix ?? 'gw'}:rate-limit:`, reportError) } : {}),
    allowList: (request) => UNLIMITED.has(request.url),
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      status: 'error',
      code: 'rate_limited',
      error: `too many requests: at most ${context.max} per ${context.after}; retry after the Retry-After delay`,
    }),
  });
});
