import { deleteRedisPrefix, metricsMissingForRules, testRedisPrefix } from '@gateway/testkit';
import { createTestDatabase, type TestDatabase } from '@gateway/app-testkit';
import { buildCallbackWorkerApp } from '../../src/app';
import { loadCallbackWorkerConfig } from '../../src/config';
import { signingKeyPair } from '../support/fixtures';
import { workerEnv } from '../support/worker-env';

// infra/prometheus/rules/callback-worker.yml alerts only on what the callback-worker exports.
const redisPrefix = testRedisPrefix('test-cbw');
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('cbw_alert_rules');
});
afterAll(async () => {
  await deleteRedisPrefix(redisPrefix);
  await db.drop();
});

it('exports every metric its alert rules read', async () => {
  const config = loadCallbackWorkerConfig(workerEnv(db, redisPrefix, [signingKeyPair('k1')]));
  const worker = await buildCallbackWorkerApp({ config, pool: db.appPool('callback-worker'), logger: false });
  try {
    expect(await metricsMissingForRules('callback-worker.yml', worker.metrics)).toEqual([]);
  } finally {
    await worker.close();
  }
});
