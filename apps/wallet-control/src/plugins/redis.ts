import fp from 'fastify-plugin';
import type IORedis from 'ioredis';

declare module 'fastify' {
  interface FastifyInstance {
    /** Shared by every replica: rate-limit and quota counters, cached exchange rates. Its owner closes it. */
    redis: IORedis;
  }
}

export const redis = fp<{ redis: IORedis }>(
  async (app, options) => {
    app.decorate('redis', options.redis);
  },
  { name: 'redis' },
);
