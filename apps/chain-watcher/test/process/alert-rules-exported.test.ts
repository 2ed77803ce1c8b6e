import type { FastifyInstance } from 'fastify';
import { metricsMissingForRules } from '@gateway/testkit';
import { useWatcherBed } from '../support/watcher-fixture';

// infra/prometheus/rules/chain-watcher.yml alerts only on what the chain-watcher exports.
const bed = useWatcherBed('watcher_alert_rules');
let app: FastifyInstance;

beforeAll(async () => {
  app = await bed.watch();
});
it('exports every metric its alert rules read', async () => {
  expect(await metricsMissingForRules('chain-watcher.yml', app.metrics)).toEqual([]);
});
