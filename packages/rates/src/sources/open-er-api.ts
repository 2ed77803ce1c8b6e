import { isLosslessNumber, parse } from 'lossless-json';
import { parseRateText, type ExactRate } from '@gateway/domain';
import { httpRateSource, type HttpRateSourceOptions } from '../http-text';
import type { RateSnapshot } from '../rate-reader';
import { assertUsableTable, RateSourceError, tableOf, type RateSource } from '../rate-source';

/**
 * ExchangeRate-API's open access endpoint: free, no key, USD-based, about 160 currencies (all of
 * ours, AED included), updated once a day; attribution to ExchangeRate-API is requested.
 */
export const OPEN_ER_API_URL = 'https://open.er-api.com/v6/latest/USD';

export function openErApiSource({ url = OPEN_ER_API_URL, timeoutMs }: HttpRateSourceOptions): RateSource {
  return httpRateSource('open-er-api', url, { timeoutMs, accept: 'application/json' }, parseOpenErApiJson);
}

/**
 * Parses `{"result":"success","base_code":"USD","time_last_update_unix":…,"rates":{"EUR":0.918273,…}}`.
 * The numbers are read from their source text (lossless-json), never through a float.
 */
export function parseOpenErApiJson(text: string): RateSnapshot {
  let body: Record<string, unknown>;
  try {
    body = parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new RateSourceError('open-er-api', `the answer is not JSON: ${(error as Error).message}`);
  }
  if (typeof body !== 'object' || body === null) throw new RateSourceError('open-er-api', 'the answer is not a JSON object');
  if (body.result !== 'success') {
    throw new RateSourceError(
      'open-er-api',
      `the API answered result=${JSON.stringify(body.result)}${body['error-type'] ? ` (${String(body['error-type'])})` : ''}`,
    );
  }
  if (body.base_code !== 'USD') {
    throw new RateSourceError('open-er-api', `the rates are against ${String(body.base_code)}, not USD; use the …/latest/USD endpoint`);
  }
  const updated = body.time_last_update_unix;
  if (!isLosslessNumber(updated) || !/^\d{9,11}$/.test(updated.value)) {
    throw new RateSourceError('open-er-api', 'time_last_update_unix is missing or not a Unix time');
  }
  const rates = body.rates;
  if (typeof rates !== 'object' || rates === null) throw new RateSourceError('open-er-api', 'the answer has no rates object');
  const entries: Array<[string, ExactRate]> = [];
  for (const [code, value] of Object.entries(rates)) {
    if (!isLosslessNumber(value) && typeof value !== 'string') continue;
    try {
      entries.push([code, parseRateText(isLosslessNumber(value) ? value.value : value)]);
    } catch {
      // A currency with an unusable rate is left out, like one the API does not list.
    }
  }
  const table = tableOf(entries);
  assertUsableTable('open-er-api', table);
  const usd = entries.find(([code]) => code === 'USD')?.[1];
  if (usd && usd.numerator !== usd.denominator) throw new RateSourceError('open-er-api', 'USD is not 1 in a USD-based table');
  return { rates: table, asOf: new Date(Number(updated.value) * 1000), source: 'open-er-api' };
}
