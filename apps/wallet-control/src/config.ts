import { SAMPLE_RATE_FILE } from '@gateway/rates';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import {
  addressInKeySettings,
  chainIdentitySettings,
  ConfigError,
  databaseSettings,
  hdPublicKeySettings,
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
import { allowedCidrProblem, type EvmAddress, type SealingKeyRing } from '@gateway/domain';
import { isPublicTestXpub } from '@gateway/chain';

export const walletControlSettings = Type.Object({
  ...runtimeSettings,
  ...databaseSettings,
  ...serverSettings(3100),
  ...metricsServerSettings(3104),
  ...addressInKeySettings,
  ...chainIdentitySettings,
  ...hdPublicKeySettings,
  ...redisSettings,
  ...rateSourceSettings,
  STATUS_RATE_LIMIT_MAX: Type.Integer({
    default: 60,
    minimum: 1,
    description: 'requests per client IP per window to /control/payment-status.php (tighter: it answers about a payment by its token)',
  }),
  PLATFORM_FEE_BPS: Type.Integer({
    default: 100,
    minimum: 0,
    maximum: 10_000,
    description:
      'platform fee in basis points (100 = 1%); must equal the settlement-worker\'s: custom-affiliate.php requires merchant_fee + affiliate_fee = 1 - this',
  }),
  AFFILIATE_SHARE_BPS: Type.Integer({
    default: 50,
    minimum: 0,
    maximum: 10_000,
    description:
      'share of each payment, in basis points (50 = 0.5%), paid to the affiliate of a wallet created by affiliate.php, beside the platform fee; recorded on the wallet when it is created',
  }),
  CALLBACK_ALLOW_TEST_DOMAINS: Type.Boolean({
    default: false,
    description: 'accept callbacks on placeholder/test domains (localhost, *.test, example.com); local stack only',
  }),
  CALLBACK_ALLOWED_CIDRS: Type.String({
    default: '',
    description:
      "comma-separated ranges exempt from the callback address rule, as on the callback-worker (set both alike): a callback whose host is an IP literal outside public unicast is refused unless one of these holds it; production refuses ranges reaching loopback, link-local, 0.0.0.0/:: or ::a.b.c.d",
  }),
  HD_INDEX_RESERVE_BATCH: Type.Integer({
    default: 100,
    minimum: 1,
    maximum: 10000,
    description: 'HD indexes a process reserves from the sequence at once (addresses are derived on the spot)',
  }),
  CALLBACK_PUBLIC_KEYS: Type.String({
    default: '',
    description:
      'public halves of the callback signing keys as kid:key, comma-separated, newest first; key is PEM or base64 SPKI (required in production)',
  }),
  ADMIN_TOKEN: Type.Optional(
    Type.String({ minLength: 32, description: 'bearer token of the /admin routes (at least 32 characters); unset, the routes do not exist' }),
  ),
});

export interface CallbackPublicKey {
  kid: string;
  key: KeyObject;
}

export interface WalletControlConfig {
  raw: Static<typeof walletControlSettings>;
  keys: SealingKeyRing;
  tokenAddress: EvmAddress;
  /** What merchants verify callback signatures with; the private halves live in the callback-worker only. */
  callbackPublicKeys: CallbackPublicKey[];
  /** Where exchange rates come from (Convert to USD). */
  rates: RateSourceConfig;
  /** CALLBACK_ALLOWED_CIDRS, checked: ranges an IP-literal callback may point into. */
  callbackAllowedCidrs: string[];
}

export function loadWalletControlConfig(env: NodeJS.ProcessEnv = process.env): WalletControlConfig {
  const raw = loadConfig(walletControlSettings, env);
  const problems: string[] = [];
  const callbackPublicKeys = parseCallbackPublicKeys(raw.CALLBACK_PUBLIC_KEYS, problems);
  const callbackAllowedCidrs = raw.CALLBACK_ALLOWED_CIDRS.split(',').map((part) => part.trim()).filter(Boolean);
  for (const cidr of callbackAllowedCidrs) {
    const problem = allowedCidrProblem(cidr, raw.NODE_ENV === 'production');
    if (problem !== undefined) problems.push(`CALLBACK_ALLOWED_CIDRS: ${problem}`);
  }
  if (raw.PLATFORM_FEE_BPS + raw.AFFILIATE_SHARE_BPS > 10_000) {
    problems.push('AFFILIATE_SHARE_BPS: together with PLATFORM_FEE_BPS it exceeds 10000 (100%)');
  }
  if (raw.NODE_ENV === 'production') {
    if (raw.CALLBACK_ALLOW_TEST_DOMAINS) problems.push('CALLBACK_ALLOW_TEST_DOMAINS: must be false in production');
    if (isPublicTestXpub(raw.HD_XPUB)) problems.push('HD_XPUB: is derived from the public test mnemonic; generate a real seed');
    if (callbackPublicKeys.length === 0) {
      problems.push('CALLBACK_PUBLIC_KEYS: required in production, or merchants cannot verify callbacks (see the callback-worker keygen command)');
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return {
    raw,
    keys: parseSealingKeys(raw.ADDRESS_IN_KEYS),
    tokenAddress: raw.USDC_TOKEN_ADDRESS as EvmAddress,
    callbackPublicKeys,
    rates: parseRateSourceSettings(raw, { sampleFile: SAMPLE_RATE_FILE }),
    callbackAllowedCidrs,
  };
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** `k2:<PEM or base64 SPKI>,k1:…` → Ed25519 public keys. A private key is refused, not converted. */
function parseCallbackPublicKeys(value: string, problems: string[], name = 'CALLBACK_PUBLIC_KEYS'): CallbackPublicKey[] {
  const keys: CallbackPublicKey[] = [];
  for (const entry of value.split(',').map((part) => part.trim()).filter(Boolean)) {
    const separator = entry.indexOf(':');
    const kid = separator === -1 ? '' : entry.slice(0, separator);
    const material = entry.slice(separator + 1).replaceAll('\\n', '\n');
    if (!KEY_ID.test(kid)) {
      problems.push(`${name}: every entry must be kid:key with a kid of letters, digits, _ or - (at most 32)`);
    } else if (isPrivateKey(material)) {
      problems.push(`${name}: ${kid} is a private key; wallet-control must only get the public half`);
    } else {
      const key = parsePublicKey(material);
      if (key === undefined) problems.push(`${name}: ${kid} is not an Ed25519 public key (PEM or base64 SPKI)`);
      else keys.push({ kid, key });
    }
  }
  if (new Set(keys.map((key) => key.kid)).size !== keys.length) problems.push(`${name}: key ids must be unique`);
  return keys;
}

function isPrivateKey(material: string): boolean {
  if (material.includes('PRIVATE KEY')) return true;
  try {
    createPrivateKey({ key: Buffer.from(material, 'base64'), format: 'der', type: 'pkcs8' });
    return true;
  } catch {
    return false;
  }
}

function parsePublicKey(material: string): KeyObject | undefined {
  try {
    const key = material.includes('-----BEGIN')
      ? createPublicKey(material)
      : createPublicKey({ key: Buffer.from(material, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' ? key : undefined;
  } catch {
    return undefined;
  }
}
