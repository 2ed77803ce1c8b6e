import { createSealingKeyRing, type SealingKeyRing } from '@gateway/domain';
import { isIP } from 'node:net';
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
 * refuses it by path too, not only when RATE_FILE is unset.
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
      resolve(raw.RATE_FILE) === resolve(options.sampleFile)
    ) {
      problems.push('RATE_FILE: the bundled sample rates are refused in production; give a table of real rates, or use RATE_SOURCE=ecb');
    }
  } else if (raw.RATE_FILE !== undefined) {
    problems.push(`RATE_FILE: only read by RATE_SOURCE=file (the source is ${kind})`);
  }
  if (maxAgeSeconds <= raw.RATE_REFRESH_SECONDS) {
    problems.push(
      `RATE_MAX_AGE_SECONDS: ${maxAgeSeconds} must be longer than RATE_REFRESH_SECONDS (${raw.RATE_REFRESH_SECONDS}), or fresh rates expire between two refreshes`,
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
      `${name}: must be base64 of at least ${MIN_SECRET_BYTES} random bytes (decodes to ${bytes.length} byte(s)${canonical !== text.replace(/=+$/, '') ? ', and is not plain base64' : ''}); generate one with: openssl rand -base64 32`,
    ]);
  }
  return bytes;
}

/**
 * The public base URL of an app that customers or providers reach ({payment_url}). In production
 * it must be https and not a loopback or unspecified address: providers send customers back to
 * it and post webhooks to it, and a plugin builds https:// links to it.
 */
export function checkPublicUrl(value: string, production: boolean, name = 'PUBLIC_URL'): string {
  const url = value.replace(/\/$/, '');
  if (!production) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError([`${name}: not a URL`]);
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const loopback =
    host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '::1' || host === '0.0.0.0' || host === '::';
  if (parsed.protocol !== 'https:' || loopback) {
    throw new ConfigError([
      `${name}: must be the https URL customers and providers reach this host at in production (got ${parsed.protocol}//${parsed.host}), e.g. https://pay.example.com`,
    ]);
  }
  return url;
}
