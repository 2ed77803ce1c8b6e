import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isLosslessNumber, parse } from 'lossless-json';
import { parseRateText, type ExactRate } from '@gateway/domain';
import type { RateSnapshot } from '../rate-reader';
import { assertUsableTable, isSupportedCurrency, RateSourceError, sourceCacheKey, tableOf, type RateSource } from '../rate-source';

/** The sample table shipped with this package: the local stack, tests and the sandbox provider. */
export const SAMPLE_RATE_FILE = join(__dirname, '..', '..', 'data', 'local-rates.json');

export interface FileSourceOptions {
  path?: string;
  now?: () => number;
}

/**
 * A JSON table kept by hand (or by the operator's own job):
 * `{"base":"USD","asOf":"2025-03-14T13:10:00Z","rates":{"EUR":"0.92","CAD":"1.37"}}`, rates as
 * units per 1 USD, strings or JSON numbers (read from their text, exactly). `asOf` is optional:
 * without it the table is taken as current each time it is read (a fixed table the operator
 * vouches for); with it, its age counts like any source's. The file is read again on every refresh.
 */
export function fileSource({ path = SAMPLE_RATE_FILE, now = Date.now }: FileSourceOptions = {}): RateSource {
  return {
    name: 'file',
    cacheKey: sourceCacheKey('file', path),
    async fetch() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        throw new RateSourceError('file', `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      return parseRateFile(text, path, now);
    },
  };
}

/** Reads a rate file at once (tools that load their table at boot, like the sandbox provider). */
export function readRateFileSync(path = SAMPLE_RATE_FILE, now = Date.now): RateSnapshot {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RateSourceError('file', `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseRateFile(text, path, now);
}

export function parseRateFile(text: string, path: string, now: () => number = Date.now): RateSnapshot {
  const fail = (message: string) => new RateSourceError('file', `${path}: ${message}`);
  let body: { base?: unknown; asOf?: unknown; rates?: unknown };
  try {
    body = parse(text) as typeof body;
  } catch (error) {
    throw fail(`not JSON (${(error as Error).message})`);
  }
  if (typeof body !== 'object' || body === null) throw fail('not a JSON object');
  if (body.base !== undefined && body.base !== 'USD')
    throw fail(`base must be "USD" (rates are units per 1 USD), not ${JSON.stringify(String(body.base))}`);
  if (typeof body.rates !== 'object' || body.rates === null) throw fail('has no "rates" object');
  const entries: Array<[string, ExactRate]> = [];
  for (const [code, value] of Object.entries(body.rates)) {
    if (!isSupportedCurrency(code)) throw fail(`${code} is not a supported currency`);
    const rateText = isLosslessNumber(value) ? value.value : value;
    if (typeof rateText !== 'string') throw fail(`the rate of ${code} must be a decimal string or number`);
    let rate: ExactRate;
    try {
      rate = parseRateText(rateText);
    } catch (error) {
      throw fail(`${code}: ${(error as Error).message}`);
    }
    if (code === 'USD' && rate.numerator !== rate.denominator) throw fail('USD must be 1');
    entries.push([code, rate]);
  }
  let asOf: Date;
  if (body.asOf === undefined || body.asOf === null) {
    asOf = new Date(now());
  } else {
    asOf = new Date(typeof body.asOf === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(body.asOf) ? body.asOf : Number.NaN);
    if (Number.isNaN(asOf.getTime())) throw fail('asOf must be an ISO 8601 date and time, e.g. 2025-03-14T13:10:00Z');
  }
  const rates = tableOf(entries);
  assertUsableTable('file', rates);
  return { rates, asOf, source: 'file' };
}
