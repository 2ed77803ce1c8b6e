import { undocumentedSettings } from '@gateway/testkit';
import { paymentRedirectSettings } from '../../src/config';

it('every setting it reads is in docs/configuration.md', () => {
  expect(undocumentedSettings(paymentRedirectSettings)).toEqual([]);
});
