import { Type, type Static } from '@sinclair/typebox';
import type { Address, Hex } from 'viem';
import { resolve } from 'node:path';
import {
  ConfigError,
  databaseSettings,
  parseSecretBytes,
  loadConfig,
  metricsServerSettings,
  runtimeSettings,
  serverSettings,
} from '@gateway/config';
import type { RateTable } from '@gateway/domain';
import { readRateFileSync, RateSourceError } from '@gateway/rates';

export const sandboxProviderSettings = Type.Object({
  ...runtimeSettings,
  // A development tool: unset means development here, and production is refused at boot.
  NODE_ENV: Type.Union([Type.Literal('production'), Type.Literal('development'), Type.Literal('test')], {
    default: 'development',
    description: 'development or test; the sandbox refuses to start in production',
  }),
  ...databaseSettings,
  ...serverSettings(3300),
  ...metricsServerSettings(3106),
  CHAIN_RPC_URL: Type.String({
    default: 'http://127.0.0.1:8545',
    pattern: '^https?://',
    description: 'JSON-RPC endpoint of the local test chain (never Polygon mainnet)',
  }),
  CHAIN_ID: Type.Integer({ default: 31337, minimum: 1, description: 'chain id of the local test chain; 137 (Polygon PoS) is refused' }),
  USDC_TOKEN_ADDRESS: Type.String({
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'the test USDC contract deployed on the local chain (never the real USDC)',
  }),
  SANDBOX_SIGNING_SECRET: Type.String({
    pattern: '^[A-Za-z0-9+/=_-]{43,88}$',
    description: 'HMAC key (base64, at least 32 bytes) shared with payment-redirect: signs checkout links and webhooks',
  }),
  SANDBOX_FUNDER_PRIVATE_KEY: Type.String({
    pattern: '^0x[0-9a-fA-F]{64}$',
    description: "private key of the sandbox's own funded test account that pays the test USDC (0x + 64 hex)",
  }),
  PROVIDER_FEE_BPS: Type.Integer({
    default: 150,
    minimum: 0,
    maximum: 9999,
    description: 'the simulated provider fee in basis points (150 = 1.5%), taken from the USDC delivered',
  }),
  RATE_FILE: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'JSON rate table (units per 1 USD) the simulated provider converts card amounts to USDC with, read at boot; default the ' +
        'sample table of @gateway/rates, which the local stack gives the gateway too',
    }),
  ),
  GATEWAY_WEBHOOK_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^?#]+$',
      description: 'payment-redirect base URL for status webhooks (POST {base}/webhooks/<provider>); unset sends none',
    }),
  ),
});

export type SandboxProviderSettings = Static<typeof sandboxProviderSettings>;

export interface SandboxProviderConfig {
  raw: SandboxProviderSettings;
  rates: RateTable;
  signingSecret: Buffer;
  funderKey: Hex;
  token: Address;
  /** No trailing slash; undefined when webhooks are off. */
  webhookBaseUrl: string | undefined;
}

export function loadSandboxProviderConfig(env: NodeJS.ProcessEnv = process.env): SandboxProviderConfig {
  const raw = loadConfig(sandboxProviderSettings, env);
  const signingSecret = parseSecretBytes(raw.SANDBOX_SIGNING_SECRET, 'SANDBOX_SIGNING_SECRET');
  return {
    raw,
    rates: loadRateTable(raw.RATE_FILE),
    signingSecret,
    funderKey: raw.SANDBOX_FUNDER_PRIVATE_KEY as Hex,
    token: raw.USDC_TOKEN_ADDRESS as Address,
    webhookBaseUrl: raw.GATEWAY_WEBHOOK_BASE_URL?.replace(/\/+$/, ''),
  };
}

/** The sandbox converts with a fixed table read once: a simulated provider has no market to follow. */
function loadRateTable(file: string | undefined): RateTable {
  try {
    return readRateFileSync(file === undefined ? undefined : resolve(file)).rates;
  } catch (error) {
    if (error instanceof RateSourceError) throw new ConfigError([`RATE_FILE: ${error.message}`]);
    throw error;
  }
}
