import { apiAppFixture, type ApiAppFixture, type EnvOverrides } from '@gateway/app-testkit';
import { buildWalletControlApp } from '../../src/app';
import { loadWalletControlConfig, type WalletControlConfig } from '../../src/config';

export type { EnvOverrides };
export type WalletControlFixture = ApiAppFixture<WalletControlConfig>;

/** A wallet-control test file's database, Redis prefix, settings and apps (see apiAppFixture). */
export function walletControlFixture(label: string, fileEnv: EnvOverrides = {}): WalletControlFixture {
  return apiAppFixture(label, { app: 'wallet-control', fileEnv, load: loadWalletControlConfig, build: buildWalletControlApp });
}
