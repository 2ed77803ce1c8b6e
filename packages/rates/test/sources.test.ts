import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExactRate } from '@gateway/domain';
import {
  ecbReferenceTime,
  ecbSource,
  fileSource,
  openErApiSource,
  parseEcbXml,
  parseRateFile,
  readRateFileSync,
  SAMPLE_RATE_FILE,
  type RateSource,
} from '../src';
import { fixture, serve, startFixtureServer, type FixtureServer } from './fixture-server';

const rate = (numerator: bigint, denominator: bigint): ExactRate => ({ numerator, denominator });

let server: FixtureServer;
const sources: RateSource[] = [];
const track = <T extends RateSource>(source: T): T => {
  sources.push(source);
  return source;
};

beforeAll(async () => {
  server = await startFixtureServer();
  server.route('/stats/eurofxref/eurofxref-daily.xml', serve(fixture('eurofxref-daily.xml'), 'text/xml'));
  server.route('/v6/latest/USD', serve(fixture('open-er-api-latest-usd.json'), 'application/json'));
});

afterAll(async () => {
  await Promise.all(sources.map((source) => source.close?.()));
  await server.close();
});

describe('ECB daily reference rates (eurofxref-daily.xml)', () => {
  it('turns rates per EUR into exact rates per USD, from the decimal strings', async () => {
    const source = track(ecbSource({ url: server.url('/stats/eurofxref/eurofxref-daily.xml'), timeoutMs: 2000 }));
    const snapshot = await source.fetch();
    expect(snapshot.source).toBe('ecb');
    // 14 March 2025 is winter: 14:10 CET is 13:10 UTC.
    expect(snapshot.asOf.toISOString()).toBe('2025-03-14T13:10:00.000Z');
    // USD 1.0890 per EUR. EUR per USD = 1/1.0890 = 10000/10890 = 1000/1089.
    expect(snapshot.rates.get('EUR')).toEqual(rate(1000n, 1089n));
    // CAD 1.5664 / 1.0890 = 15664/10890; both share 22 (2·11) → 712/495.
    expect(snapshot.rates.get('CAD')).toEqual(rate(712n, 495n));
    // GBP 0.84015 / 1.0890 = 84015/108900; both share 45 → 1867/2420.
    expect(snapshot.rates.get('GBP')).toEqual(rate(1867n, 2420n));
    // INR 94.6110 / 1.0890 = 946110/10890; both share 330 → 2867/33.
    expect(snapshot.rates.get('INR')).toEqual(rate(2867n, 33n));
    expect(snapshot.rates.get('USD')).toEqual(rate(1n, 1n));
    // The ECB publishes no AED; JPY, HUF, … are not currencies this gateway takes.
    expect(snapshot.rates.has('AED')).toBe(false);
    expect([...snapshot.rates.keys()].sort()).toEqual([
      'AUD',
      'BRL',
      'CAD',
      'CHF',
      'CZK',
      'DKK',
      'EUR',
      'GBP',
      'HKD',
      'INR',
      'MXN',
      'NOK',
      'NZD',
      'PLN',
      'SEK',
      'SGD',
      'TRY',
      'USD',
      'ZAR',
    ]);
  });

  it('takes the newest day of a multi-day file, dated 14:10 CEST in summer', () => {
    const snapshot = parseEcbXml(fixture('eurofxref-hist-90d-excerpt.xml'));
    expect(snapshot.asOf.toISOString()).toBe('2025-06-13T12:10:00.000Z');
    // 1/1.1512 = 10000/11512 = 1250/1439; GBP 0.85080/1.1512 = 85080/115120 = 2127/2878.
    expect(snapshot.rates.get('EUR')).toEqual(rate(1250n, 1439n));
    expect(snapshot.rates.get('GBP')).toEqual(rate(2127n, 2878n));
  });

  it('dates the reference rates at the concertation time in Frankfurt', () => {
    expect(ecbReferenceTime('2025-01-02').toISOString()).toBe('2025-01-02T13:10:00.000Z');
    expect(ecbReferenceTime('2025-07-01').toISOString()).toBe('2025-07-01T12:10:00.000Z');
  });

  it('refuses answers that are not reference rates', () => {
    expect(() => parseEcbXml('<html><body>Maintenance</body></html>')).toThrow(/ecb: the answer has no <Cube time/);
    expect(() => parseEcbXml(fixture('eurofxref-daily.xml').replace("currency='USD' rate='1.0890'", "currency='USD' rate='n/a'"))).toThrow(
      /USD has a rate that is not a positive decimal/,
    );
    expect(() => parseEcbXml(fixture('eurofxref-daily.xml').replace("<Cube currency='USD' rate='1.0890'/>", ''))).toThrow(/no USD rate/);
  });
});

describe('ExchangeRate-API open endpoint (open-er-api)', () => {
  it('reads the USD-based rates exactly from the JSON number text', async () => {
    const snapshot = await track(openErApiSource({ url: server.url('/v6/latest/USD'), timeoutMs: 2000 })).fetch();
    expect(snapshot.source).toBe('open-er-api');
    expect(snapshot.asOf.toISOString()).toBe('2025-03-14T00:02:31.000Z'); // time_last_update_unix 1741910551
    expect(snapshot.rates.get('EUR')).toEqual(rate(919077n, 1000000n)); // 0.919077
    expect(snapshot.rates.get('INR')).toEqual(rate(86960541n, 1000000n)); // 86.960541
    expect(snapshot.rates.get('AED')).toEqual(rate(1469n, 400n)); // 3.6725 = 36725/10000 = 1469/400
    expect(snapshot.rates.get('BRL')).toEqual(rate(2897921n, 500000n)); // 5.795842
    expect(snapshot.rates.size).toBe(20); // every supported currency, USD included; the other 28 left out
  });

  it('refuses an error answer, another base, or a missing date', async () => {
    server.route('/v6/latest/XXX', serve('{"result":"error","error-type":"unsupported-code"}', 'application/json'));
    const source = track(openErApiSource({ url: server.url('/v6/latest/XXX'), timeoutMs: 2000 }));
    await expect(source.fetch()).rejects.toThrow(/open-er-api: the API answered result="error" \(unsupported-code\)/);
    const eurBased = fixture('open-er-api-latest-usd.json').replace('"base_code":"USD"', '"base_code":"EUR"');
    server.route('/v6/latest/EUR', serve(eurBased, 'application/json'));
    await expect(track(openErApiSource({ url: server.url('/v6/latest/EUR'), timeoutMs: 2000 })).fetch()).rejects.toThrow(
      /against EUR, not USD/,
    );
    const undated = fixture('open-er-api-latest-usd.json').replace('"time_last_update_unix":1741910551,', '');
    server.route('/v6/latest/undated', serve(undated, 'application/json'));
    await expect(track(openErApiSource({ url: server.url('/v6/latest/undated'), timeoutMs: 2000 })).fetch()).rejects.toThrow(
      /time_last_update_unix is missing/,
    );
  });
});

describe('HTTP failures are clear and bounded', () => {
  it('names the status, and never follows a redirect', async () => {
    server.route('/down', serve('Service Unavailable', 'text/plain', 503));
    server.route('/moved', (_request, response) => response.writeHead(301, { location: 'https://elsewhere.test/rates.xml' }).end());
    await expect(track(ecbSource({ url: server.url('/down'), timeoutMs: 2000 })).fetch()).rejects.toThrow(
      /ecb: GET http:\/\/127\.0\.0\.1:\d+\/down answered 503/,
    );
    await expect(track(ecbSource({ url: server.url('/moved'), timeoutMs: 2000 })).fetch()).rejects.toThrow(
      /answered 301 \(redirect to https:\/\/elsewhere\.test\/rates\.xml; set RATE_SOURCE_URL/,
    );
  });

  it('gives up on a silent server within the time limit', async () => {
    server.route('/silent', () => undefined);
    const started = Date.now();
    await expect(track(ecbSource({ url: server.url('/silent'), timeoutMs: 300 })).fetch()).rejects.toThrow(/no answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('stops reading an oversized answer, and reports a refused connection', async () => {
    server.route('/huge', serve('x'.repeat(1_100_000), 'text/xml'));
    await expect(track(ecbSource({ url: server.url('/huge'), timeoutMs: 2000 })).fetch()).rejects.toThrow(/larger than 1000000 bytes/);
    await expect(track(ecbSource({ url: 'http://127.0.0.1:1/x.xml', timeoutMs: 2000 })).fetch()).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('file source', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rates-'));
  const write = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  };

  it('reads the sample table exactly, strings and numbers alike, dated when read', async () => {
    const snapshot = await fileSource({ now: () => Date.UTC(2025, 0, 1) }).fetch();
    expect(snapshot.source).toBe('file');
    expect(snapshot.asOf.toISOString()).toBe('2025-01-01T00:00:00.000Z');
    expect(snapshot.rates.get('EUR')).toEqual(rate(23n, 25n)); // 0.92
    expect(snapshot.rates.get('AED')).toEqual(rate(1469n, 400n)); // 3.6725
    expect(snapshot.rates.size).toBe(20);
    expect(readRateFileSync(SAMPLE_RATE_FILE).rates.get('INR')).toEqual(rate(831n, 10n));
    const numbers = write('numbers.json', '{"base":"USD","asOf":"2025-03-14T13:10:00Z","rates":{"EUR":0.919077,"INR":8.6960541e1}}');
    const dated = await fileSource({ path: numbers }).fetch();
    expect(dated.asOf.toISOString()).toBe('2025-03-14T13:10:00.000Z');
    expect(dated.rates.get('EUR')).toEqual(rate(919077n, 1000000n));
    expect(dated.rates.get('INR')).toEqual(rate(86960541n, 1000000n));
  });

  it('refuses a table it cannot trust, naming the file and the problem', async () => {
    expect(() => parseRateFile('{"rates":{"XXX":"1"}}', 'r.json')).toThrow(/file: r\.json: XXX is not a supported currency/);
    expect(() => parseRateFile('{"base":"EUR","rates":{"USD":"1.08"}}', 'r.json')).toThrow(/base must be "USD"/);
    expect(() => parseRateFile('{"rates":{"EUR":"-0.9"}}', 'r.json')).toThrow(/EUR: .*not a decimal exchange rate/);
    expect(() => parseRateFile('{"rates":{"EUR":"0.92"},"asOf":"yesterday"}', 'r.json')).toThrow(/asOf must be an ISO 8601/);
    expect(() => parseRateFile('{"rates":{}}', 'r.json')).toThrow(/none of the supported currencies/);
    await expect(fileSource({ path: join(dir, 'missing.json') }).fetch()).rejects.toThrow(/cannot read .*missing\.json \(ENOENT\)/);
  });
});
