import { undocumentedSettings } from '@gateway/testkit';
import { settlementSettings } from '../../src/config';

it('every setting it reads is in docs/configuration.md', () => {
  expect(undocumentedSettings(settlementSettings)).toEqual([]);
});
