import { createHash } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import {
  createSealingKeyRing,
  defaultOtherUsdc,
  OTHER_USDC_FORWARD_REFUSAL,
  OTHER_USDC_NONE,
  otherUsdcRefusal,
  type OtherUsdcDepositMode,
  productionChainRefusal,
  productionRedisUrlRefusal,
  productionPublicUrlRefusal,
  publicUrlHostName,
  resolvedPublicHostRefusal,
  type ChainNetwork,
  type SealingKeyRing,
} from '@gateway/domain';
import { resolve } from 'node:path';
import { ConfigError } from './load-config';

/** `k2:base64,k1:base64` → key ring with k2 current. */
export function parseSealingKeys(value: string, name = 'ADDRESS_IN_KEYS'): SealingKeyRing {
  try {
    return createSealingKeyRing(
      value.split(',').map((pair) => {
        const [id = '', secret = ''] = pair.split(':');
        return { id, key: Buffer.from(secret, secret.includes('-') || secret.includes('_') ? 'base64url' : 'base64') };
      }),
    );
  } catch (error) {
    throw new ConfigError([`${name}: ${(error as Error).message}`]);
  }
}

export type RateSourceKind = 'ecb' | 'open-er-api' | 'file';

/** The rate source settings, resolved (defaults applied, durations in milliseconds). */
export interface RateSourceConfig {
  kind: RateSourceKind;
  /** Overrides the source's built-in URL (ecb, open-er-api). */
  url?: string;
  /** The JSON table of the file source, an absolute path; unset: the sample table of @gateway/rates (never in production). */
  file?: string;
  refreshMs: number;
  maxAgeMs: number;
  fetchTimeoutMs: number;
}

/**
 * How old rates may get before they are refused. The ECB publishes once per TARGET working day
 * (about 16:00 CET); its longest regular gap is Easter, Thursday's rates until Tuesday afternoon
 * (about 99 hours), so 5 days covers every holiday with a day to spare for a late publication or
 * failing fetches, and still catches a source that stopped publishing within a week. The open
 * ExchangeRate-API endpoint updates daily: 2 days allow one missed update. A file (that has a
 * date at all) is held to the ECB's rule.
 */
export const DEFAULT_RATE_MAX_AGE_SECONDS: Readonly<Record<RateSourceKind, number>> = {
  ecb: 5 * 86_400,
  'open-er-api': 2 * 86_400,
  file: 5 * 86_400,
};

interface RateSourceRaw {
  NODE_ENV: 'production' | 'development' | 'test';
  RATE_SOURCE?: RateSourceKind;
  RATE_SOURCE_URL?: string;
  RATE_FILE?: string;
  RATE_REFRESH_SECONDS: number;
  RATE_MAX_AGE_SECONDS?: number;
  RATE_FETCH_TIMEOUT_SECONDS: number;
}

/**
 * Applies the rate source defaults (ecb in production, the file source elsewhere) and checks the
 * combination. `sampleFile` is the development table bundled with @gateway/rates: production
 * refuses it by its content (rateTableFingerprint), wherever a copy of it lies, not only when
 * RATE_FILE is unset.
 */
export function parseRateSourceSettings(raw: RateSourceRaw, options: { sampleFile?: string } = {}): RateSourceConfig {
  const kind = raw.RATE_SOURCE ?? (raw.NODE_ENV === 'production' ? 'ecb' : 'file');
  const maxAgeSeconds = raw.RATE_MAX_AGE_SECONDS ?? DEFAULT_RATE_MAX_AGE_SECONDS[kind];
  const problems: string[] = [];
  if (kind === 'file') {
    if (raw.RATE_SOURCE_URL !== undefined) problems.push('RATE_SOURCE_URL: not used by RATE_SOURCE=file; set RATE_FILE instead');
    if (raw.RATE_FILE === undefined && raw.NODE_ENV === 'production') {
      problems.push('RATE_FILE: required for RATE_SOURCE=file in production (the built-in table is a development sample)');
    }
    if (
      raw.RATE_FILE !== undefined &&
      raw.NODE_ENV === 'production' &&
      options.sampleFile !== undefined &&
      holdsSampleRates(resolve(raw.RATE_FILE), options.sampleFile)
    ) {
      problems.push('RATE_FILE: the bundled sample rates are refused in production; give a table of real rates, or use RATE_SOURCE=ecb');
    }
  } else if (raw.RATE_FILE !== undefined) {
    problems.push(`RATE_FILE: only read by RATE_SOURCE=file (the source is ${kind})`);
  }
  if (maxAgeSeconds <= raw.RATE_REFRESH_SECONDS) {
    problems.push(
      `RATE_MAX_AGE_SECONDS: ${maxAgeSeconds} must be longer than RATE_REFRESH_SECONDS (${raw.RATE_REFRESH_SECONDS}), or fresh rates ` +
        `expire between two refreshes`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    kind,
    ...(raw.RATE_SOURCE_URL !== undefined ? { url: raw.RATE_SOURCE_URL } : {}),
    ...(raw.RATE_FILE !== undefined ? { file: resolve(raw.RATE_FILE) } : {}),
    refreshMs: raw.RATE_REFRESH_SECONDS * 1000,
    maxAgeMs: maxAgeSeconds * 1000,
    fetchTimeoutMs: raw.RATE_FETCH_TIMEOUT_SECONDS * 1000,
  };
}

/** Fastify's `trustProxy`: false, a hop count, or proxy addresses and ranges. */
export type TrustProxy = false | number | string[];

/**
 * `false`, `1`, or `10.0.0.0/8,192.168.1.7`. Trusting the header as a whole (`true`) is not
 * offered: the left-most X-Forwarded-For entry is whatever the client wrote, so a limit keyed on
 * it can be dodged by changing it on every request.
 */
export function parseTrustProxy(value: string, name = 'TRUST_PROXY'): TrustProxy {
  if (value === 'false' || value === '0') return false;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const ranges = value.split(',').map((entry) => entry.trim());
  const bad = ranges.filter((entry) => {
    const [address = '', prefix, extra] = entry.split('/');
    const version = isIP(address);
    if (version === 0 || extra !== undefined) return true;
    return prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
  });
  if (bad.length > 0) {
    throw new ConfigError([
      `${name}: ${bad.join(', ')} is not an IP address or CIDR range; use false, a number of proxy hops, or proxy addresses/ranges`,
    ]);
  }
  return ranges;
}

/** Shortest key the gateway's own HMAC and sealing secrets may have. */
export const MIN_SECRET_BYTES = 32;

/**
 * A secret given as base64 or base64url, decoded. Refused unless it decodes to at least 32 bytes
 * and re-encodes to what was given (so 43 "=" — a 0-byte key that passes a character check — or
 * a value with stray characters is caught at boot, not in the first signature).
 */
export function parseSecretBytes(value: string, name: string): Buffer {
  const text = value.trim();
  const urlSafe = /[-_]/.test(text);
  const bytes = Buffer.from(text, urlSafe ? 'base64url' : 'base64');
  const canonical = bytes.toString(urlSafe ? 'base64url' : 'base64').replace(/=+$/, '');
  if (canonical !== text.replace(/=+$/, '') || bytes.length < MIN_SECRET_BYTES) {
    throw new ConfigError([
      `${name}: must be base64 of at least ${MIN_SECRET_BYTES} random bytes (decodes to ${bytes.length} ` +
        `byte(s)${canonical !== text.replace(/=+$/, '') ? ', and is not plain base64' : ''}); generate one with: openssl rand ` +
        `-base64 32`,
    ]);
  }
  return bytes;
}

/**
 * The public base URL of an app that customers or providers reach ({payment_url}). In production
 * it must be https and its host a public name or address, by the rule merchant callbacks are held
 * to (productionPublicUrlRefusal in @gateway/domain): providers send customers back to it and post
 * webhooks to it, and a plugin builds https:// links to it.
 */
export function checkPublicUrl(value: string, production: boolean, name = 'PUBLIC_URL'): string {
  const url = value.replace(/\/$/, '');
  if (!production) return url;
  const refusal = productionPublicUrlRefusal(url);
  if (refusal === 'not a URL') throw new ConfigError([`${name}: not a URL`]);
  if (refusal !== undefined) {
    const parsed = new URL(url);
    throw new ConfigError([
      `${name}: must be the https URL customers and providers reach this host at in production (got ` +
        `${parsed.protocol}//${parsed.host}): ${refusal}; e.g. https://pay.example.com`,
    ]);
  }
  return url;
}

/** The addresses a host name resolves to. */
export type HostResolver = (host: string) => Promise<string[]>;

/** The machine's resolver (getaddrinfo: /etc/hosts, then DNS), every address it gives. */
export const resolveHostAddresses: HostResolver = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map(({ address }) => address);

/**
 * The second half of checkPublicUrl, run at boot (it waits for the resolver): in production a
 * PUBLIC_URL whose host is a name must resolve, and to public addresses only. A name such as
 * 127.0.0.1.nip.io passes by its spelling and leads to loopback. Resolved once, at boot: a name
 * whose records change later is the operator's to keep public.
 */
export async function checkPublicUrlResolves(
  value: string,
  production: boolean,
  resolve: HostResolver = resolveHostAddresses,
  name = 'PUBLIC_URL',
): Promise<void> {
  const host = production ? publicUrlHostName(value) : undefined;
  if (host === undefined) return;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ConfigError([
      `${name}: its host ${host} does not resolve (${typeof code === 'string' ? code : (error as Error).message}); in production ` +
        'it must be the name customers and providers reach this host at, resolving to its public address',
    ]);
  }
  const refusal = resolvedPublicHostRefusal(host, addresses);
  if (refusal !== undefined) {
    throw new ConfigError([
      `${name}: must be the https URL customers and providers reach this host at in production: ${refusal}; e.g. https://pay.example.com`,
    ]);
  }
}

/**
 * CHAIN_ID against CHAIN_NETWORK: production runs on Polygon PoS (137), or on Polygon Amoy (80002)
 * where the operator says CHAIN_NETWORK=testnet (productionChainRefusal in @gateway/domain).
 * Every app with the chain settings applies it; problems are added to `problems`.
 */
export function checkChainNetwork(raw: { CHAIN_ID: number; CHAIN_NETWORK: ChainNetwork }, production: boolean, problems: string[]): void {
  if (!production) return;
  const refusal = productionChainRefusal(raw.CHAIN_ID, raw.CHAIN_NETWORK);
  if (refusal !== undefined) problems.push(`CHAIN_ID: ${refusal}`);
}

/**
 * REDIS_URL in production names the app's own Redis user (productionRedisUrlRefusal in
 * @gateway/domain). Every app with Redis applies it; problems are added to `problems`.
 */
export function checkRedisUrl(raw: { REDIS_URL: string }, production: boolean, problems: string[]): void {
  if (!production) return;
  const refusal = productionRedisUrlRefusal(raw.REDIS_URL);
  if (refusal !== undefined) problems.push(`REDIS_URL: ${refusal}`);
}

/** The other USDC as an app runs with it: its address (lower-case) or none, and what happens to its deposits. */
export interface OtherUsdc {
  token: `0x${string}` | undefined;
  deposits: OtherUsdcDepositMode;
}

/**
 * OTHER_USDC_TOKEN_ADDRESS resolved against the chain and the settled token (defaultOtherUsdc when
 * unset), its problems pushed to `problems` (otherUsdcRefusal: never the settled token; in
 * production on Polygon PoS, Polygon's two USDCs only).
 */
export function resolveOtherUsdc(
  raw: { CHAIN_ID: number; USDC_TOKEN_ADDRESS: string; OTHER_USDC_TOKEN_ADDRESS?: string; OTHER_USDC_DEPOSITS: OtherUsdcDepositMode },
  production: boolean,
  problems: string[],
): OtherUsdc {
  const configured = raw.OTHER_USDC_TOKEN_ADDRESS ?? defaultOtherUsdc(raw.CHAIN_ID, raw.USDC_TOKEN_ADDRESS);
  if (configured === undefined || configured === OTHER_USDC_NONE) return { token: undefined, deposits: raw.OTHER_USDC_DEPOSITS };
  const refusal = otherUsdcRefusal(raw.CHAIN_ID, raw.USDC_TOKEN_ADDRESS, configured, production);
  if (refusal !== undefined) problems.push(`OTHER_USDC_TOKEN_ADDRESS: ${refusal}`);
  if (raw.OTHER_USDC_DEPOSITS === 'forward') problems.push(`OTHER_USDC_DEPOSITS: ${OTHER_USDC_FORWARD_REFUSAL}`);
  return { token: configured.toLowerCase() as `0x${string}`, deposits: raw.OTHER_USDC_DEPOSITS };
}

/**
 * What a rate table says, independent of where it lies and how it is laid out: the SHA-256 of its
 * base and rates with keys sorted (of its bytes, when it is not such a table). A copy of the
 * bundled sample under another name, reformatted or with another description, has the sample's.
 */
export function rateTableFingerprint(text: string): string {
  let canonical = text;
  try {
    const table = JSON.parse(text) as { base?: unknown; rates?: unknown };
    if (table !== null && typeof table === 'object' && table.rates !== null && typeof table.rates === 'object') {
      canonical = JSON.stringify(sortedKeys({ base: table.base ?? null, rates: table.rates }));
    }
  } catch {
    // Not JSON: its bytes are its content (the rate reader refuses it anyway).
  }
  return createHash('sha256').update(canonical).digest('hex');
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, inner]) => [key, sortedKeys(inner)]),
  );
}

/** Whether `file` holds the same rates as `sampleFile`; false when either cannot be read (the rate reader reports that). */
function holdsSampleRates(file: string, sampleFile: string): boolean {
  try {
    return rateTableFingerprint(readFileSync(file, 'utf8')) === rateTableFingerprint(readFileSync(sampleFile, 'utf8'));
  } catch {
    return false;
  }
}
