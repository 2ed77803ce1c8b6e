import fp from 'fastify-plugin';
import type { Pool } from 'pg';
import { logLostConnections } from '@gateway/db/payment-redirect';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's pool, logged in as payment-redirect's role; its owner (main.ts, or a test) ends it. */
    pool: Pool;
  }
}

export const postgres = fp<{ pool: Pool }>(
  async (app, { pool }) => {
    const stopLoggingLostConnections = logLostConnections(pool, app.log);
    app.addHook('onClose', async () => stopLoggingLostConnections());
    app.decorate('pool', pool);
  },
  { name: 'postgres' },
);
