import { transakTokenName } from '@gateway/providers';
import { FAKE_API_KEY, FAKE_API_SECRET } from '../../../../packages/providers/test/support/transak-fake';

export { FAKE_API_SECRET, startTransakFake, type TransakFake } from '../../../../packages/providers/test/support/transak-fake';

/** Transak in test mode with the local fake's credentials; its URLs point nowhere until the fake listens (transakAt). */
export const TRANSAK_SETTINGS = {
  PROVIDER_TRANSAK_API_KEY: FAKE_API_KEY,
  PROVIDER_TRANSAK_API_SECRET: FAKE_API_SECRET,
  PROVIDER_TRANSAK_MODE: 'test',
  ...transakAt('http://127.0.0.1:1'),
};

/** Transak's API and its gateway, both at `url` (the fake serves both). */
export function transakAt(url: string) {
  return { PROVIDER_TRANSAK_API_URL: url, PROVIDER_TRANSAK_GATEWAY_URL: url };
}

/** The Redis key of the fake's partner token under `prefix` (REDIS_PREFIX). */
export function transakTokenKey(prefix: string): string {
  return `${prefix}:provider-tokens:transak:${transakTokenName('test', FAKE_API_KEY)}`;
}
