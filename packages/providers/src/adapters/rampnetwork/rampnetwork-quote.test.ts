import { contractContext } from '../../../test/support/adapter-contract';
import { mockProviderApi } from '../../../test/support/mock-provider-api';
import { startRampQuoteFake, type QuoteFake } from '../../../test/support/quote-api-fake';
import type { ProviderAdapter, ProviderMode } from '../../provider-contract';
import { createProviderHttpClient, type ProviderHttpClient } from '../../support/provider-http-client';
import { rampnetwork } from './rampnetwork-adapter';

const HOST_API_KEY = 'rk_host_7fQ2mZ9xLw4Tb8Vn';

let fake: QuoteFake;
beforeAll(async () => {
  fake = await startRampQuoteFake(HOST_API_KEY);
});
afterAll(async () => fake.close());
beforeEach(() => fake.reset());
afterEach(() => expect(fake.problems).toEqual([]));

async function adapter(options: { hostApiKey?: string; mode?: ProviderMode; http?: ProviderHttpClient } = {}): Promise<ProviderAdapter> {
  const { hostApiKey = HOST_API_KEY, mode = 'live' } = options;
  // A given client (MockAgent on Ramp's own hosts) asks the default host: no API_URL then.
  return rampnetwork.create(
    { HOST_API_KEY: hostApiKey, ...(options.http ? {} : { API_URL: fake.url }) },
    contractContext('rampnetwork', mode, { http: options.http ?? createProviderHttpClient({ maxAttempts: 1 }) }),
  );
}

const quoteOf = async (amount: string, options: Parameters<typeof adapter>[0] = {}) =>
  (await adapter(options)).quote!({ amount, currency: 'USD' }, { signal: AbortSignal.timeout(3000) });
const played = (body: string) => () => ({ status: 200, body });
const USDC = '{"symbol":"USDC","chain":"MATIC","decimals":6,"address":"0x3c499c542cef5e3811e1192ce70d8cc03d5c3359"}';

describe('ramp network quote against a local Ramp', () => {
  it('asks the on-ramp quote for the checkout’s asset with the host key, and reads the card’s USDC and total', async () => {
    fake.feeBps = 290;
    // 100.00 less 2.9 %: 97.10 USDC in base units; the customer pays the 100.00.
    await expect(quoteOf('100.00')).resolves.toEqual({ usdc: 97_100_000n, total: '100.00', currency: 'USD' });
    const [request] = fake.requests;
    expect(request!.method).toBe('POST');
    const url = new URL(request!.path, 'http://fake');
    expect(url.pathname).toBe('/api/host-api/v3/onramp/quote/all');
    expect(Object.fromEntries(url.searchParams)).toEqual({ hostApiKey: HOST_API_KEY });
    // The amount is a JSON number written from the order's decimal text.
    expect(request!.body).toBe('{"cryptoAssetSymbol":"MATIC_USDC","fiatCurrency":"USD","fiatValue":100.00}');
  });

  it('reads the card, not the cheaper bank transfer beside it, and keeps fiatValue exactly', async () => {
    fake.script = played(
      `{"asset":${USDC},"MANUAL_BANK_TRANSFER":{"cryptoAmount":"24500000","fiatValue":25,"appliedFee":0.5},` +
        `"CARD_PAYMENT":{"fiatCurrency":"USD","cryptoAmount":"24012345","fiatValue":25.000000000000001,"appliedFee":0.98765,"baseRampFee":0.98765}}`,
    );
    await expect(quoteOf('25.00')).resolves.toEqual({ usdc: 24_012_345n, total: '25.000000000000001', currency: 'USD' });
  });

  it.each([
    ['live', 'https://api.ramp.network'],
    ['test', 'https://api.demo.ramp.network'],
  ] as const)('asks %s mode at %s when no API_URL is set', async (mode, origin) => {
    const { agent, http } = mockProviderApi();
    agent
      .get(origin)
      .intercept({ method: 'POST', path: `/api/host-api/v3/onramp/quote/all?hostApiKey=${HOST_API_KEY}` })
      .reply(200, `{"asset":${USDC},"CARD_PAYMENT":{"cryptoAmount":"48550000","fiatValue":50}}`);
    await expect(quoteOf('50.00', { mode, http })).resolves.toEqual({ usdc: 48_550_000n, total: '50.00', currency: 'USD' });
  });

  it('reports Ramp’s error answer, and is refused with a host key the fake does not know', async () => {
    fake.script = () => fake.refusal(400, 'fiatValue is below the minimum');
    await expect(quoteOf('1.00')).rejects.toThrow(/Ramp Network refused the quote \(HTTP 400: fiatValue is below the minimum\)/);
    fake.script = undefined;
    await expect(quoteOf('25.00', { hostApiKey: 'rk_host_unknown_key_123' })).rejects.toThrow(/HTTP 401/);
  });

  it.each([
    ['no asset', '{"CARD_PAYMENT":{"cryptoAmount":"24000000","fiatValue":25}}', /asset is missing/],
    [
      'bridged USDC.e',
      `{"asset":{"symbol":"USDC","chain":"MATIC","decimals":6,"address":"0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174"},"CARD_PAYMENT":{"cryptoAmount":"24000000","fiatValue":25}}`,
      /address/,
    ],
    [
      'another chain',
      '{"asset":{"symbol":"USDC","chain":"ETH","decimals":6},"CARD_PAYMENT":{"cryptoAmount":"24000000","fiatValue":25}}',
      /chain is "ETH"/,
    ],
    [
      'another asset’s decimals',
      '{"asset":{"symbol":"USDC","chain":"MATIC","decimals":18},"CARD_PAYMENT":{"cryptoAmount":"24000000","fiatValue":25}}',
      /decimals is not 6/,
    ],
    ['no card quote', `{"asset":${USDC},"MANUAL_BANK_TRANSFER":{"cryptoAmount":"24000000","fiatValue":25}}`, /CARD_PAYMENT is missing/],
    ['a decimal cryptoAmount', `{"asset":${USDC},"CARD_PAYMENT":{"cryptoAmount":"24.5","fiatValue":25}}`, /whole number of base units/],
    [
      'cryptoAmount as a number',
      `{"asset":${USDC},"CARD_PAYMENT":{"cryptoAmount":24000000,"fiatValue":25}}`,
      /cryptoAmount is missing or not a string/,
    ],
    [
      'another currency',
      `{"asset":${USDC},"CARD_PAYMENT":{"fiatCurrency":"EUR","cryptoAmount":"24000000","fiatValue":25}}`,
      /fiatCurrency is "EUR"/,
    ],
    ['a zero total', `{"asset":${USDC},"CARD_PAYMENT":{"cryptoAmount":"24000000","fiatValue":0}}`, /not a positive amount/],
  ])('refuses an answer with %s', async (_case, body, why) => {
    fake.script = played(body);
    await expect(quoteOf('25.00')).rejects.toThrow(why);
  });
});
