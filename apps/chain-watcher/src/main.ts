import { ConfigError, databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db/chain-watcher';
import { runServer } from '@gateway/http';
import { buildChainWatcherApp } from './app';
import { loadChainWatcherConfig } from './config';

async function main(): Promise<void> {
  const config = loadChainWatcherConfig();
  const { raw } = config;
  const pool = createPool({ ...databasePoolOptions(raw, 'chain-watcher'), app: 'chain-watcher' });
  const app = await buildChainWatcherApp({ config, pool });
  app.addHook('onClose', () => pool.end());
  await runServer(app, { host: raw.METRICS_HOST, port: raw.METRICS_PORT });
  app.chainWatcher.start();
}

main().catch((error: Error) => {
  console.error(error instanceof ConfigError ? `chain-watcher: ${error.message}` : error);
  process.exit(1);
});
