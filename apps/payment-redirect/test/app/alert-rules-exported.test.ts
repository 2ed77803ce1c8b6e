import { metricsMissingForRules } from '@gateway/testkit';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// infra/prometheus/rules/payment-redirect.yml alerts only on what payment-redirect exports.
const fixture = paymentRedirectFixture('alert_rules');

it('exports every metric its alert rules read', async () => {
  const app = await fixture.build();
  expect(await metricsMissingForRules('payment-redirect.yml', app.metrics)).toEqual([]);
});
