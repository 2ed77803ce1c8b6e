import { undocumentedSettings } from '@gateway/testkit';
import { callbackWorkerSettings } from '../../src/config';

it('every setting it reads is in docs/configuration.md', () => {
  expect(undocumentedSettings(callbackWorkerSettings)).toEqual([]);
});
