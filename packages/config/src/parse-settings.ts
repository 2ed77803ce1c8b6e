import { createSealingKeyRing, parseRate, SUPPORTED_CURRENCIES, type CurrencyCode, type RateTable, type SealingKeyRing } from '@gateway/domain';
import { isIP } from 'node:net';
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

/** `EUR=0.92,CAD=1.37` (units per USD) → rate table; unknown currencies are refused. */
export function parseRateTable(value: string, name = 'FX_RATES_PER_USD'): RateTable {
  const table = new Map<CurrencyCode, ReturnType<typeof parseRate>>();
  const problems: string[] = [];
  for (const pair of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [code = '', rate = ''] = pair.split('=');
    if (!(SUPPORTED_CURRENCIES as readonly string[]).includes(code)) {
      problems.push(`${name}: ${code || pair} is not a supported currency`);
      continue;
    }
    try {
      table.set(code as CurrencyCode, parseRate(rate));
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return table;
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
    throw new ConfigError([`${name}: ${bad.join(', ')} is not an IP address or CIDR range; use false, a number of proxy hops, or proxy addresses/ranges`]);
  }
  return ranges;
}
