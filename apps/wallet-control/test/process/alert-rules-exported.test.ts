import { metricsMissingForRules } from '@gateway/testkit';
import { walletControlFixture } from '../support/wallet-control-fixture';

// infra/prometheus/rules/wallet-control.yml alerts only on what wallet-control exports.
const fixture = walletControlFixture('alert_rules');

it('exports every metric its alert rules read', async () => {
  const app = await fixture.build();
  expect(await metricsMissingForRules('wallet-control.yml', app.metrics)).toEqual([]);
});
