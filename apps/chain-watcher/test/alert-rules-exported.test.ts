import type { FastifyInstance } from 'fastify';
import { metricsMissingForRules } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { startLocalChain, type LocalChain } from './support/local-chain';
import { startWatcher, uniqueRedisPrefix } from './support/watcher-fixture';

// infra/prometheus/rules/chain-watcher.yml alerts only on what the chain-watcher exports.
let db: TestDatabase;
let chain: LocalChain;
let app: FastifyInstance;

beforeAll(async () => {
  [db, chain] = await Promise.all([createTestDatabase('watcher_alert_rules'), startLocalChain()]);
  app = await startWatcher({ db, rpcUrl: chain.anvil.rpcUrl, token: chain.token, redisPrefix: uniqueRedisPrefix() });
});
afterAll(async () => {
  await app?.close();
  await chain?.stop();
  await db?.drop();
});

it('exports every metric its alert rules read', async () => {
  expect(await metricsMissingForRules('chain-watcher.yml', app.metrics)).toEqual([]);
});
