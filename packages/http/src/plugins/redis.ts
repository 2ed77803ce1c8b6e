import fp from 'fastify-plugin';
import type IORedis from 'ioredis';

declare module 'fastify' {
  interface FastifyInstance {
    /** Shared by every replica (rate-limit counters, cached exchange rates and the app's own keys); its owner closes it. */
    redis: IORedis;
  }
}

/** An API app's Redis client (createApiRedis) on the instance. */
export const redisPlugin = fp<{ redis: IORedis }>(
  async (app, options) => {
    app.decorate('redis', options.redis);
  },
  { name: 'redis' },
);
