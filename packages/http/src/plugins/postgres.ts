import fp from 'fastify-plugin';
import type { Pool } from 'pg';
import { logLostConnections } from '@gateway/db';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's pool, logged in as the app's own role; its owner (main.ts, or a test) ends it. */
    pool: Pool;
  }
}

/** The app's PostgreSQL pool on the instance, with a lost connection logged while the app runs. */
export const postgresPlugin = fp<{ pool: Pool }>(
  async (app, { pool }) => {
    const stopLoggingLostConnections = logLostConnections(pool, app.log);
    app.addHook('onClose', async () => stopLoggingLostConnections());
    app.decorate('pool', pool);
  },
  { name: 'postgres' },
);
