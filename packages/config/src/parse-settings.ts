import { createSealingKeyRing, parseRate, SUPPORTED_CURRENCIES, type CurrencyCode, type RateTable, type SealingKeyRing } from '@gateway/domain';
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
