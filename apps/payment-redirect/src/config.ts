import { Type, type Static } from '@sinclair/typebox';
import {
  addressInKeySettings,
  databaseSettings,
  loadConfig,
  metricsServerSettings,
  parseRateSourceSettings,
  parseSealingKeys,
  rateSourceSettings,
  type RateSourceConfig,
  redisSettings,
  runtimeSettings,
  serverSettings,
} from '@gateway/config';
import type { SealingKeyRing } from '@gateway/domain';

export const paymentRedirectSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...serverSettings(3200),
  ...metricsServerSettings(3105),
  ...addressInKeySettings,
  ...redisSettings,
  PUBLIC_URL: Type.String({
    default: 'http://127.0.0.1:3200',
    pattern: '^https?://[^/?#]+$',
    description: 'public base URL of this host ({payment_url}), no trailing slash: providers send the customer back to its receipt pages',
  }),
  EXPLORER_TX_URL: Type.String({
    default: 'https://polygonscan.com/tx/{tx}',
    pattern: '^(none|https?://[^\\s]*\\{tx\\}[^\\s]*)$',
    description: 'block explorer link of a transaction, {tx} standing for its hash; none for a chain without one (a local chain)',
  }),
  SANDBOX_PROVIDER_URL: Type.String({
    default: 'http://127.0.0.1:3300',
    pattern: '^https?://',
    description: 'base URL of the sandbox provider that stands in for on-ramps without credentials',
  }),
  SANDBOX_SIGNING_SECRET: Type.String({
    pattern: '^[A-Za-z0-9+/=_-]{43,88}$',
    description: 'HMAC key (base64, at least 32 bytes) shared with the sandbox provider',
  }),
  ...rateSourceSettings,
});

export interface PaymentRedirectConfig {
  raw: Static<typeof paymentRedirectSettings>;
  keys: SealingKeyRing;
  /** Where exchange rates come from (provider minimums, the hosted checkout). */
  rates: RateSourceConfig;
  sandboxSecret: Buffer;
  /** Block explorer link template, or null when the chain has no explorer. */
  explorerTxUrl: string | null;
}

export function loadPaymentRedirectConfig(env: NodeJS.ProcessEnv = process.env): PaymentRedirectConfig {
  const raw = loadConfig(paymentRedirectSettings, env);
  return {
    raw,
    keys: parseSealingKeys(raw.ADDRESS_IN_KEYS),
    rates: parseRateSourceSettings(raw),
    sandboxSecret: Buffer.from(raw.SANDBOX_SIGNING_SECRET, 'base64'),
    explorerTxUrl: raw.EXPLORER_TX_URL === 'none' ? null : raw.EXPLORER_TX_URL,
  };
}
