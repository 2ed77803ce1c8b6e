import { XMLParser } from 'fast-xml-parser';
import { parseRate, ratioOfRates, UNIT_RATE, type ExactRate } from '@gateway/domain';
import { httpRateSource, type HttpRateSourceOptions } from '../http-text';
import type { RateSnapshot } from '../rate-reader';
import { assertUsableTable, RateSourceError, tableOf, type RateSource } from '../rate-source';

/** The European Central Bank's euro foreign exchange reference rates, published once per TARGET working day. */
export const ECB_DAILY_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml';

/**
 * The ECB's daily reference rates (`eurofxref-daily.xml`; the 90-day history file works too, its
 * newest day is taken). The file gives units of each currency per 1 EUR as decimal strings; a
 * currency's units per 1 USD is rate(C) / rate(USD), and EUR's is 1 / rate(USD), all exact.
 * The ECB does not publish every currency (no AED, for one): those stay out of the table.
 */
export function ecbSource({ url = ECB_DAILY_URL, timeoutMs }: HttpRateSourceOptions): RateSource {
  return httpRateSource('ecb', url, { timeoutMs, accept: 'application/xml, text/xml' }, parseEcbXml);
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  // Rates stay the strings the ECB wrote: never numbers, so never floats.
  parseAttributeValue: false,
  parseTagValue: false,
  processEntities: false,
  isArray: (name) => name === 'Cube',
});

interface CubeNode {
  time?: string;
  currency?: string;
  rate?: string;
  Cube?: CubeNode[];
}

/** Parses the ECB reference rate XML into a snapshot of units per 1 USD. */
export function parseEcbXml(xml: string): RateSnapshot {
  let document: { Envelope?: { Cube?: CubeNode[] } };
  try {
    document = parser.parse(xml, true) as typeof document;
  } catch (error) {
    throw new RateSourceError('ecb', `the answer is not XML: ${(error as Error).message}`);
  }
  const days = (document.Envelope?.Cube?.[0]?.Cube ?? []).filter((cube) => typeof cube.time === 'string');
  if (days.length === 0) throw new RateSourceError('ecb', 'the answer has no <Cube time="…"> of reference rates');
  const newest = days.reduce((a, b) => ((b.time ?? '') > (a.time ?? '') ? b : a));
  const date = newest.time ?? '';
  const perEur = new Map<string, ExactRate>();
  for (const cube of newest.Cube ?? []) {
    if (typeof cube.currency !== 'string' || typeof cube.rate !== 'string') continue;
    try {
      perEur.set(cube.currency, parseRate(cube.rate));
    } catch {
      throw new RateSourceError('ecb', `${cube.currency} has a rate that is not a positive decimal ("${cube.rate.slice(0, 20)}")`);
    }
  }
  const usdPerEur = perEur.get('USD');
  if (!usdPerEur) throw new RateSourceError('ecb', `the rates of ${date} have no USD rate, so nothing can be converted to USD`);
  const entries: Array<[string, ExactRate]> = [['EUR', ratioOfRates(UNIT_RATE, usdPerEur)]];
  for (const [code, rate] of perEur) entries.push([code, ratioOfRates(rate, usdPerEur)]);
  const rates = tableOf(entries);
  assertUsableTable('ecb', rates);
  return { rates, asOf: ecbReferenceTime(date), source: 'ecb' };
}

/**
 * When the ECB's rates of a day are from: its daily concertation at 14:10 Frankfurt time (CET or
 * CEST), published around 16:00. The age of a snapshot counts from there.
 */
export function ecbReferenceTime(date: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new RateSourceError('ecb', `"${date.slice(0, 20)}" is not a reference date (YYYY-MM-DD)`);
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const asIfUtc = Date.UTC(year, month - 1, day, 14, 10);
  return new Date(asIfUtc - frankfurtOffsetMinutes(new Date(asIfUtc)) * 60_000);
}

const offsetFormat = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', timeZoneName: 'shortOffset' });

function frankfurtOffsetMinutes(at: Date): number {
  const name = offsetFormat.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const match = /^GMT([+-])(\d{1,2})(?::(\d{2}))?$/.exec(name);
  if (!match) return 60; // CET, without time zone data
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}
