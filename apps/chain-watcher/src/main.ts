import { databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db/chain-watcher';
import { runApp } from '@gateway/http';
import { buildChainWatcherApp } from './app';
import { loadChainWatcherConfig } from './config';

runApp({
  name: 'chain-watcher',
  loadConfig: loadChainWatcherConfig,
  async build(config) {
    const { raw } = config;
    const pool = createPool({ ...databasePoolOptions(raw, 'chain-watcher'), app: 'chain-watcher' });
    const app = await buildChainWatcherApp({ config, pool });
    app.addHook('onClose', () => pool.end());
    return { app, listen: { host: raw.METRICS_HOST, port: raw.METRICS_PORT }, onListening: () => app.chainWatcher.start() };
  },
});
