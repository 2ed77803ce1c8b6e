import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export type ReadinessCheck = () => Promise<boolean>;

/**
 * `/healthz`: the process is alive (restart it if not). `/readyz`: its dependencies answer
 * (send it traffic only if so). Each check names itself in the body.
 */
export const healthPlugin = fp(async (app: FastifyInstance, options: { checks: Record<string, ReadinessCheck> }) => {
  app.get('/healthz', { schema: { hide: true }, logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) => {
    const entries = await Promise.all(
      Object.entries(options.checks).map(async ([name, check]) => [name, await check().catch(() => false)] as const),
    );
    const ready = entries.every(([, ok]) => ok);
    reply.status(ready ? 200 : 503);
    return { status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(entries.map(([name, ok]) => [name, ok ? 'ok' : 'failing'])) };
  });
});
