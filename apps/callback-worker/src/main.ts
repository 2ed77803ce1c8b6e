import { ConfigError, databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db/callback-worker';
import { runServer } from '@gateway/http';
import { startCallbackWorker } from './app';
import { loadCallbackWorkerConfig } from './config';

async function main(): Promise<void> {
  const config = loadCallbackWorkerConfig();
  const { raw } = config;
  const pool = createPool({
    ...databasePoolOptions(raw, 'callback-worker'),
    app: 'callback-worker',
    // Safe here: a claim or attempt record lost in a PostgreSQL crash leaves the delivery pending
    // and due, so it is sent again (same delivery id), never lost; the delivery rows themselves are
    // written by settlement with normal commits. Saves a disk flush (~3.5 ms here) per batch.
    asynchronousCommit: true,
  });
  const app = await startCallbackWorker({ config, pool });
  app.addHook('onClose', () => pool.end());
  // SIGTERM: attempts in flight run to their deadline and their records commit before the exit.
  await runServer(app, { host: raw.METRICS_HOST, port: raw.METRICS_PORT }, { closeDelayMs: config.shutdownGraceMs });
}

main().catch((error: Error) => {
  console.error(error instanceof ConfigError ? `callback-worker: ${error.message}` : error);
  process.exit(1);
});
