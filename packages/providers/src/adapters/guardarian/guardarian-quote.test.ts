import { contractContext } from '../../../test/support/adapter-contract';
import { startGuardarianFake, type GuardarianFake } from '../../../test/support/guardarian-fake';
import { mockProviderApi } from '../../../test/support/mock-provider-api';
import type { CheckoutOrder, ProviderMode } from '../../provider-contract';
import { createProviderHttpClient, type ProviderHttpClient } from '../../support/provider-http-client';
import { guardarian } from './guardarian-adapter';

let fake: GuardarianFake;
beforeAll(async () => {
  fake = await startGuardarianFake();
});
afterAll(async () => fake.close());
beforeEach(() => fake.reset());
afterEach(() => expect(fake.problems).toEqual([]));

async function quoteOf(
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  options: { apiKey?: string; mode?: ProviderMode; http?: ProviderHttpClient } = {},
) {
  const { apiKey = fake.apiKey, mode = 'live' } = options;
  // A given client (MockAgent on Guardarian's own hosts) asks the default host: no API_URL then.
  const adapter = await guardarian.create(
    { API_KEY: apiKey, ...(options.http ? {} : { API_URL: fake.url }) },
    contractContext('guardarian', mode, { http: options.http ?? createProviderHttpClient({ maxAttempts: 1 }) }),
  );
  return adapter.quote!(order, { signal: AbortSignal.timeout(3000) });
}

const played = (body: string) => () => ({ status: 200, body });

describe('guardarian estimate against a local Guardarian', () => {
  it('asks Get estimate as the checkout’s transaction buys, and reads value as the USDC received for the amount paid', async () => {
    // 100.00 less the 3.00 service fee, less 0.05 USDC of network fee: 96.95 USDC; the customer pays 100.00.
    await expect(quoteOf({ amount: '100.00', currency: 'USD' })).resolves.toEqual({ usdc: 96_950_000n, total: '100.00', currency: 'USD' });
    const [request] = fake.requests;
    expect(request!.method).toBe('GET');
    const url = new URL(request!.path, 'http://fake');
    expect(url.pathname).toBe('/v1/estimate');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      from_amount: '100.00',
      from_currency: 'USD',
      from_network: 'USD',
      to_currency: 'USDC',
      to_network: 'MATIC',
    });
    expect(request!.headers['x-api-key']).toBe(fake.apiKey);
  });

  it('quotes another currency in that currency', async () => {
    await expect(quoteOf({ amount: '49.99', currency: 'EUR' })).resolves.toEqual({ usdc: 48_440_000n, total: '49.99', currency: 'EUR' });
    expect(new URL(fake.requests[0]!.path, 'http://fake').searchParams.get('from_network')).toBe('EUR');
  });

  it('reads value exactly, truncated to base units, with the fields of the captured staging answer beside it', async () => {
    fake.script = played(
      '{"to_currency":"USDC","from_currency":"USD","to_network":"MATIC","value":"24.1234569","service_fees":[{"amount":"0.75","currency":"USD"}],' +
        '"estimated_exchange_rate":"0.9649","converted_amount":{"amount":"24.25","currency":"USD"},"network_fee":{"currency":"USDC","amount":"0.1265"}}',
    );
    await expect(quoteOf({ amount: '25.00', currency: 'USD' })).resolves.toEqual({ usdc: 24_123_456n, total: '25.00', currency: 'USD' });
  });

  it.each([
    ['live', 'https://api-payments.guardarian.com'],
    ['test', 'https://api-payments-staging.guardarian.com'],
  ] as const)('asks %s mode at %s when no API_URL is set', async (mode, origin) => {
    const { agent, http } = mockProviderApi();
    agent
      .get(origin)
      .intercept({
        method: 'GET',
        path: '/v1/estimate?from_amount=50.00&from_currency=USD&from_network=USD&to_currency=USDC&to_network=MATIC',
        headers: { 'x-api-key': fake.apiKey },
      })
      .reply(200, '{"value":"48.5"}');
    await expect(quoteOf({ amount: '50.00', currency: 'USD' }, { mode, http })).resolves.toEqual({
      usdc: 48_500_000n,
      total: '50.00',
      currency: 'USD',
    });
  });

  it('reports Guardarian’s error answer, and is refused with a key the fake does not know', async () => {
    fake.script = () => fake.refusal(400, 'from_amount is less than the minimum');
    await expect(quoteOf({ amount: '1.00', currency: 'USD' })).rejects.toThrow(
      /Guardarian refused the quote \(HTTP 400: from_amount is less than the minimum\)/,
    );
    fake.script = undefined;
    await expect(quoteOf({ amount: '25.00', currency: 'USD' }, { apiKey: '00000000-0000-4000-8000-000000000000' })).rejects.toThrow(
      /HTTP 403/,
    );
  });

  it.each([
    ['no value', '{"to_currency":"USDC"}', /value is missing or not a string/],
    ['value as a number', '{"value":24.5}', /value is missing or not a string/],
    ['another coin', '{"to_currency":"USDT","value":"24.5"}', /to_currency is "USDT"/],
    ['another network', '{"to_network":"ETH","value":"24.5"}', /to_network is "ETH"/],
    ['another fiat', '{"from_currency":"EUR","value":"24.5"}', /from_currency is "EUR"/],
    ['a conversion in another fiat', '{"converted_amount":{"amount":"24","currency":"EUR"},"value":"24.5"}', /currency is "EUR"/],
    ['a zero value', '{"value":"0"}', /not a positive amount/],
  ])('refuses an answer with %s', async (_case, body, why) => {
    fake.script = played(body);
    await expect(quoteOf({ amount: '25.00', currency: 'USD' })).rejects.toThrow(why);
  });
});
