import { undocumentedSettings } from '@gateway/testkit';
import { chainWatcherSettings } from '../../src/config';

it('every setting it reads is in docs/configuration.md', () => {
  expect(undocumentedSettings(chainWatcherSettings)).toEqual([]);
});
