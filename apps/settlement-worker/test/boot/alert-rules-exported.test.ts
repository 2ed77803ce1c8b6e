import { metricsMissingForRules } from '@gateway/testkit';
import { settlementFixtureForFile, type SettlementFixture } from '../support/settlement-fixture';

// infra/prometheus/rules/settlement.yml alerts only on what the settlement-worker exports.
let fixture: SettlementFixture;
settlementFixtureForFile('settlement_alert_rules', (started) => (fixture = started));

it('exports every metric its alert rules read', async () => {
  const app = await fixture.startApp();
  expect(await metricsMissingForRules('settlement.yml', app.metrics)).toEqual([]);
});
