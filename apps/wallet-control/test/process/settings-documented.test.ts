import { undocumentedSettings } from '@gateway/testkit';
import { walletControlSettings } from '../../src/config';

it('every setting it reads is in docs/configuration.md', () => {
  expect(undocumentedSettings(walletControlSettings)).toEqual([]);
});
