// @fastify/rate-limit ships its Redis store without types; this is the part we call.
declare module '@fastify/rate-limit/store/RedisStore' {
  import type IORedis from 'ioredis';

  class RedisStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, redis: IORedis, key?: string);
  }
  export = RedisStore;
}
