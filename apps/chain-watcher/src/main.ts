import { databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db/chain-watcher';
import { runApp } from '@gateway/http';
import { postgresRequirement, redisRequirement, ServerRequirements } from '@gateway/http/boot-checks';
import { buildChainWatcherApp } from './app';
import { loadChainWatcherConfig } from './config';

runApp({
  name: 'chain-watcher',
  loadConfig: loadChainWatcherConfig,
  async build(config) {
    const { raw } = config;
    const pool = createPool({ ...databasePoolOptions(raw, 'chain-watcher'), app: 'chain-watcher' });
    const requirements = new ServerRequirements([postgresRequirement(pool), redisRequirement(raw.REDIS_URL)]);
    await requirements.atBoot();
    const app = await buildChainWatcherApp({ config, pool });
    requirements.attachTo(app);
    app.addHook('onClose', () => pool.end());
    return { app, listen: { host: raw.METRICS_HOST, port: raw.METRICS_PORT }, onListening: () => app.chainWatcher.start() };
  },
});
