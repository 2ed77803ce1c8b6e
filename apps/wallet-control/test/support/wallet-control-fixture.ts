import { apiAppFixture, type ApiAppFixture, type EnvOverrides } from '@gateway/app-testkit';
import { buildWalletControlApp } from '../../src/app';
import { loadWalletControlConfig, type WalletControlConfig } from '../../src/config';

export type { EnvOverrides };
export type WalletControlFixture = ApiAppFixture<WalletControlConfig>;

/** A wallet-control test file's database, Redis prefix, settings and apps (see apiAppFixture). */
export function walletControlFixture(label: string, fileEnv: EnvOverrides = {}): WalletControlFixture {
  // Tests create many wallets from one client address; only the tests of the limits on new wallets want them (each
  // client may create a tenth of the ceiling a minute, unless NEW_WALLETS_PER_CLIENT_PER_MINUTE says otherwise).
  const env = { NEW_WALLETS_PER_MINUTE: '100000', ...fileEnv };
  return apiAppFixture(label, { app: 'wallet-control', fileEnv: env, load: loadWalletControlConfig, build: buildWalletControlApp });
}
