// @fastify/rate-limit ships its stores without types; this is the part we call.
declare module '@fastify/rate-limit/store/RedisStore' {
  import type IORedis from 'ioredis';

  class RedisStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, redis: IORedis, key?: string);
  }
  export = RedisStore;
}

declare module '@fastify/rate-limit/store/LocalStore' {
  /** Counts in this process, in an LRU of `cache` keys. */
  class LocalStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, cache?: number);
  }
  export = LocalStore;
}
