import type { FastifyInstance } from 'fastify';
import { metricsMissingForRules } from '@gateway/testkit';
import { openWatcherBed, type WatcherBed } from './support/watcher-fixture';

// infra/prometheus/rules/chain-watcher.yml alerts only on what the chain-watcher exports.
let bed: WatcherBed;
let app: FastifyInstance;

beforeAll(async () => {
  bed = await openWatcherBed('watcher_alert_rules');
  app = await bed.watch();
});
afterAll(() => bed?.close());

it('exports every metric its alert rules read', async () => {
  expect(await metricsMissingForRules('chain-watcher.yml', app.metrics)).toEqual([]);
});
