import { undocumentedSettings } from '@gateway/testkit';
import { sandboxProviderSettings } from '../src/config';

it('every setting it reads is in docs/configuration.md', () => {
  expect(undocumentedSettings(sandboxProviderSettings)).toEqual([]);
});
