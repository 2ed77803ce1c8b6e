import { Type, type Static } from '@sinclair/typebox';
import {
  addressInKeySettings,
  databaseSettings,
  loadConfig,
  parseRateTable,
  parseSealingKeys,
  runtimeSettings,
  serverSettings,
} from '@gateway/config';
import type { RateTable, SealingKeyRing } from '@gateway/domain';

export const paymentRedirectSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...serverSettings(3200),
  ...addressInKeySettings,
  PUBLIC_URL: Type.String({
    default: 'http://127.0.0.1:3200',
    pattern: '^https?://[^/?#]+$',
    description: 'public base URL of this host ({payment_url}), no trailing slash: providers send the customer back to its receipt pages',
  }),
  EXPLORER_TX_URL: Type.String({
    default: 'https://polygonscan.com/tx/{tx}',
    pattern: '^(https?://[^\\s]*\\{tx\\}[^\\s]*)?$',
    description: 'block explorer link of a transaction, {tx} standing for its hash; empty for none (a local chain)',
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
  FX_RATES_PER_USD: Type.String({
    default: 'EUR=0.92,GBP=0.79,CAD=1.37,AUD=1.52,NZD=1.66,CHF=0.88,SEK=10.5,NOK=10.7,DKK=6.86,PLN=3.95,CZK=23.1,INR=83.1,BRL=5.0,MXN=17.1,SGD=1.34,HKD=7.82,ZAR=18.6,TRY=32.5,AED=3.6725',
    description: 'units of each currency per 1 USD, for provider minimums (a live rate source comes later)',
  }),
});

export interface PaymentRedirectConfig {
  raw: Static<typeof paymentRedirectSettings>;
  keys: SealingKeyRing;
  rates: RateTable;
  sandboxSecret: Buffer;
}

export function loadPaymentRedirectConfig(env: NodeJS.ProcessEnv = process.env): PaymentRedirectConfig {
  const raw = loadConfig(paymentRedirectSettings, env);
  return {
    raw,
    keys: parseSealingKeys(raw.ADDRESS_IN_KEYS),
    rates: parseRateTable(raw.FX_RATES_PER_USD),
    sandboxSecret: Buffer.from(raw.SANDBOX_SIGNING_SECRET, 'base64'),
  };
}
