import { Type, type Static } from '@sinclair/typebox';
import {
  addressInKeySettings,
  chainIdentitySettings,
  ConfigError,
  databaseSettings,
  hdPublicKeySettings,
  loadConfig,
  parseSealingKeys,
  runtimeSettings,
  serverSettings,
} from '@gateway/config';
import type { EvmAddress, SealingKeyRing } from '@gateway/domain';
import { isPublicTestXpub } from '@gateway/chain';

export const walletControlSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...serverSettings(3100),
  ...addressInKeySettings,
  ...chainIdentitySettings,
  ...hdPublicKeySettings,
  CALLBACK_ALLOW_TEST_DOMAINS: Type.Boolean({
    default: false,
    description: 'accept callbacks on placeholder/test domains (localhost, *.test, example.com); local stack only',
  }),
  ADDRESS_POOL_TARGET: Type.Integer({ default: 5000, minimum: 0, description: 'pre-derived addresses to keep ready (0 disables the keeper)' }),
  ADDRESS_POOL_LOW_WATER: Type.Integer({ default: 1000, minimum: 0, description: 'refill the address pool below this many' }),
  ADDRESS_POOL_CLAIM_BATCH: Type.Integer({ default: 100, minimum: 1, maximum: 1000, description: 'addresses a process claims from the pool at once' }),
});

export interface WalletControlConfig {
  raw: Static<typeof walletControlSettings>;
  keys: SealingKeyRing;
  tokenAddress: EvmAddress;
}

export function loadWalletControlConfig(env: NodeJS.ProcessEnv = process.env): WalletControlConfig {
  const raw = loadConfig(walletControlSettings, env);
  if (raw.NODE_ENV === 'production') {
    const problems: string[] = [];
    if (raw.CALLBACK_ALLOW_TEST_DOMAINS) problems.push('CALLBACK_ALLOW_TEST_DOMAINS: must be false in production');
    if (isPublicTestXpub(raw.HD_XPUB)) problems.push('HD_XPUB: is derived from the public test mnemonic; generate a real seed');
    if (problems.length) throw new ConfigError(problems);
  }
  return { raw, keys: parseSealingKeys(raw.ADDRESS_IN_KEYS), tokenAddress: raw.USDC_TOKEN_ADDRESS as EvmAddress };
}
