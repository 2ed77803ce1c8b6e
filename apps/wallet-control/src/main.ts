import { runApiApp } from '@gateway/http';
import { buildWalletControlApp } from './app';
import { loadWalletControlConfig } from './config';

runApiApp({
  name: 'wallet-control',
  // Its Redis keys are rate-limit counters, payout quotas and cached rates: an evicted one is a
  // window counted afresh, never lost work, so it runs on any maxmemory-policy.
  queuesInRedis: false,
  loadConfig: loadWalletControlConfig,
  build: (config, { pool, redis }) => buildWalletControlApp({ config, pool, redis }),
});
