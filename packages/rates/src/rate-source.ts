import { createHash } from 'node:crypto';
import { SUPPORTED_CURRENCIES, UNIT_RATE, type CurrencyCode, type ExactRate, type RateTable } from '@gateway/domain';
import type { RateSnapshot } from './rate-reader';

/**
 * Where exchange rates come from: one fetch gives the whole table (units of each currency per
 * 1 USD) with the date the source gives it. Currencies the source does not publish are simply
 * absent from the table. `fetch` throws a RateSourceError when the source cannot be used.
 */
export interface RateSource {
  /** Short name, e.g. `ecb`, `open-er-api`, `file`: the snapshot's `source`. */
  readonly name: string;
  /** Names this source and its address (URL or file), so a cache never mixes two sources. */
  readonly cacheKey: string;
  fetch(): Promise<RateSnapshot>;
  /** Releases connections; the source is not used afterwards. */
  close?(): Promise<void>;
}

export class RateSourceError extends Error {
  constructor(source: string, message: string, options?: { cause?: unknown }) {
    super(`${source}: ${message}`, options);
    this.name = 'RateSourceError';
  }
}

export function sourceCacheKey(name: string, address: string): string {
  return `${name}:${createHash('sha256').update(address).digest('hex').slice(0, 12)}`;
}

const SUPPORTED = new Set<string>(SUPPORTED_CURRENCIES);

export function isSupportedCurrency(code: string): code is CurrencyCode {
  return SUPPORTED.has(code);
}

/** A table with USD at exactly 1 and the given currencies; anything unsupported is left out. */
export function tableOf(entries: Iterable<[string, ExactRate]>): Map<CurrencyCode, ExactRate> {
  const table = new Map<CurrencyCode, ExactRate>([['USD', UNIT_RATE]]);
  for (const [code, rate] of entries) {
    if (code !== 'USD' && isSupportedCurrency(code)) table.set(code, rate);
  }
  return table;
}

/** A table must hold at least one currency besides USD to be worth anything. */
export function assertUsableTable(source: string, table: RateTable): void {
  if (table.size < 2) throw new RateSourceError(source, `none of the supported currencies (${SUPPORTED_CURRENCIES.join(', ')}) has a rate`);
}
