import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { walletControlFixture } from '../support/wallet-control-fixture';

// Rates as units per 1 USD; no AED, so a supported currency without a rate can be tried.
const RATES = { base: 'USD', rates: { USD: '1', EUR: '0.92', CAD: '1.37', INR: '83.1', GBP: '0.79' } };

const fixture = walletControlFixture('convert');
let dir: string;
let built = 0;
let app: FastifyInstance;

async function buildApp(rates: object | { url: string }): Promise<FastifyInstance> {
  const file = join(dir, `rates-${built++}.json`);
  writeFileSync(file, JSON.stringify(rates));
  const source: Record<string, string> =
    'url' in rates ? { RATE_SOURCE: 'ecb', RATE_SOURCE_URL: rates.url } : { RATE_SOURCE: 'file', RATE_FILE: file };
  return fixture.build(fixture.config(source));
}

const convert = (query: Record<string, string>, on = app) => on.inject({ method: 'GET', url: '/control/convert.php', query });
/** convert.php's status code and body for `query`, in one value to compare. */
const answer = async (query: Record<string, string>) => {
  const response = await convert(query);
  return { statusCode: response.statusCode, body: response.json() };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'convert-'));
  app = await buildApp(RATES);
});

describe('GET /control/convert.php', () => {
  it.each([
    // 49.9 / 0.92 = 54.2391… → up to 54.24; 1/0.92 = 1.0869565217… → 1.086956522
    [{ from: 'eur', value: '49.9' }, '54.24', '1.086956522'],
    // 2500 / 0.92 = 2717.3913… → 2717.40
    [{ from: 'EUR', value: '2500.00' }, '2717.40', '1.086956522'],
    // 92 / 0.92 = 100 exactly: nothing to round
    [{ from: 'Eur', value: '92' }, '100.00', '1.086956522'],
    // a PHP float tail: 33.333333333 / 0.92 = 36.2318840576… → 36.24
    [{ from: 'eur', value: '33.333333333' }, '36.24', '1.086956522'],
    [{ from: 'eur', value: '33.333333333333336' }, '36.24', '1.086956522'],
    // 150 / 1.37 = 109.4890510… → 109.49; 1/1.37 = 0.72992700729… → 0.7299270073
    [{ from: 'cad', value: '150' }, '109.49', '0.7299270073'],
    // 100 / 1.37 = 72.99270072… → 73.00
    [{ from: 'CAD', value: '100.00' }, '73.00', '0.7299270073'],
    // 1000 / 83.1 = 12.0336943… → 12.04; 1/83.1 = 0.012033694344… → 0.01203369434
    [{ from: 'inr', value: '1000' }, '12.04', '0.01203369434'],
    // 0.01 INR is worth 0.00012 USD: still a cent, never 0.00
    [{ from: 'inr', value: '0.01' }, '0.01', '0.01203369434'],
    // USD is the identity, whatever the rates
    [{ from: 'usd', value: '150' }, '150.00', '1'],
    [{ from: 'USD', value: '49.9' }, '49.90', '1'],
    [{ from: 'usd', value: '10.001' }, '10.01', '1'],
  ])('%j → %s USD at %s', async (query, valueCoin, exchangeRate) => {
    const response = await convert(query);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ status: 'success', value_coin: valueCoin, exchange_rate: exchangeRate });
  });

  describe('refuses bad input with a 400 naming the parameter', () => {
    it.each([
      [{ from: 'eur' }, 'missing_parameter', 'value'],
      [{ value: '10' }, 'missing_parameter', 'from'],
      [{ from: 'eur', value: '' }, 'invalid_parameter', 'value'],
      [{ from: 'eur', value: '-5' }, 'invalid_parameter', 'value'],
      [{ from: 'eur', value: '0' }, 'invalid_parameter', 'value'],
      [{ from: 'eur', value: '0.00' }, 'invalid_parameter', 'value'],
      [{ from: 'eur', value: '1e3' }, 'invalid_parameter', 'value'],
      [{ from: 'eur', value: 'abc' }, 'invalid_parameter', 'value'],
      [{ from: 'eur', value: '1,5' }, 'invalid_parameter', 'value'],
      [{ from: 'eur', value: 'NaN' }, 'invalid_parameter', 'value'],
      [{ from: 'usd', value: '2000000' }, 'invalid_parameter', 'value'],
      [{ from: 'XYZ', value: '10' }, 'unsupported_currency', 'from'],
      [{ from: 'euro', value: '10' }, 'invalid_parameter', 'from'],
      [{ from: '', value: '10' }, 'invalid_parameter', 'from'],
    ])('%j → %s', async (query, code, param) => {
      expect(await answer(query)).toEqual({ statusCode: 400, body: { status: 'error', code, param, error: expect.any(String) } });
    });

    it('says what a good value looks like', async () => {
      expect((await convert({ from: 'eur', value: '1e3' })).json().error).toBe(
        'value must be a plain positive decimal with a dot, e.g. 49.99 or 150 (no sign, exponent, comma or spaces; got "1e3")',
      );
      expect((await convert({ from: 'eur', value: '0' })).json().error).toBe('value must be greater than 0');
      expect((await convert({ from: 'eur' })).json().error).toMatch(/^value is required: the amount to convert/);
      expect((await convert({ from: 'XYZ', value: '1' })).json().error).toMatch(/^from XYZ is not supported; use one of USD, EUR/);
    });

    it('says so when a supported currency has no rate from the source', async () => {
      expect(await answer({ from: 'aed', value: '10' })).toEqual({
        statusCode: 400,
        body: {
          status: 'error',
          code: 'unsupported_currency',
          param: 'from',
          error:
            'from AED has no exchange rate on this gateway: its rate source (file) does not publish one; convert from another currency',
        },
      });
    });
  });

  it('refuses rates older than the maximum age with a 503 and Retry-After, but still converts USD', async () => {
    const stale = await buildApp({ ...RATES, asOf: new Date(Date.now() - 6 * 86_400_000).toISOString() });
    const response = await convert({ from: 'eur', value: '49.9' }, stale);
    expect(response.statusCode).toBe(503);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    expect(response.json()).toEqual({
      status: 'error',
      code: 'service_unavailable',
      error: expect.stringMatching(
        /^exchange rates are too old to use: the newest from file are of .*, 6 days ago, and this gateway refuses rates older than 5 days; retry later$/,
      ),
    });
    expect((await convert({ from: 'usd', value: '49.9' }, stale)).json()).toEqual({
      status: 'success',
      value_coin: '49.90',
      exchange_rate: '1',
    });
    const metrics = await stale.metrics.metrics();
    expect(metrics).toMatch(/^exchange_rates_usable\{[^}]*\} 0$/m);
    expect(Number(/^exchange_rates_age_seconds\{[^}]*source="file"[^}]*\} (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThan(5 * 86_400);
    expect(await app.metrics.metrics()).toMatch(/^exchange_rates_usable\{[^}]*\} 1$/m);
  });

  it("converts with the ECB's reference rates end to end (a recorded eurofxref-daily.xml, re-dated)", async () => {
    const recorded = readFileSync(
      join(__dirname, '..', '..', '..', '..', 'packages', 'rates', 'test', 'fixtures', 'eurofxref-daily.xml'),
      'utf8',
    );
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    let body = recorded.replace("time='2025-03-14'", `time='${yesterday}'`);
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/xml' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
    try {
      const ecb = await buildApp({ url: url('/eurofxref-daily.xml') });
      // USD 1.0890 per EUR: 49.9 EUR = 54.3411 USD → 54.35, and the rate is the ECB's own, exactly.
      expect((await convert({ from: 'eur', value: '49.9' }, ecb)).json()).toEqual({
        status: 'success',
        value_coin: '54.35',
        exchange_rate: '1.089',
      });
      // CAD per USD = 1.5664/1.0890 = 712/495: 150 CAD = 150 × 495/712 = 104.2837… → 104.29 USD.
      expect((await convert({ from: 'cad', value: '150' }, ecb)).json()).toEqual({
        status: 'success',
        value_coin: '104.29',
        exchange_rate: '0.6952247191',
      });
      // The ECB publishes no AED.
      expect((await convert({ from: 'aed', value: '10' }, ecb)).json().error).toMatch(/its rate source \(ecb\) does not publish one/);

      // The recorded day itself (14 March 2025) is far too old to use.
      body = recorded;
      const stale = await buildApp({ url: url('/recorded/eurofxref-daily.xml') });
      const response = await convert({ from: 'eur', value: '49.9' }, stale);
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toMatch(
        /^exchange rates are too old to use: the newest from ecb are of 2025-03-14T13:10:00\.000Z, \d+ days ago/,
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('is in the OpenAPI document with both parameters required', async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json();
    const operation = doc.paths['/control/convert.php'].get;
    expect(operation.summary).toBe('Convert to USD');
    expect(operation.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required])).toEqual([
      ['value', true],
      ['from', true],
    ]);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '400', '503']);
  });
});
