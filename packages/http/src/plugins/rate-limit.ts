import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
}

/** Per client IP, in memory per process (each replica limits on its own). */
export const rateLimitPlugin = fp(async (app: FastifyInstance, options: RateLimitOptions) => {
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowMs,
    allowList: (request) => request.url === '/healthz' || request.url === '/readyz' || request.url === '/metrics',
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      status: 'error',
      code: 'rate_limited',
      error: `too many requests: at most ${context.max} per ${context.after}; retry later`,
    }),
  });
});
