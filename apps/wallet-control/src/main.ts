import { runApiApp } from '@gateway/http';
import { buildWalletControlApp } from './app';
import { loadWalletControlConfig } from './config';

runApiApp({
  name: 'wallet-control',
  loadConfig: loadWalletControlConfig,
  build: (config, { pool, redis }) => buildWalletControlApp({ config, pool, redis }),
});
