import { MockAgent } from 'undici';
import { contractContext } from '../../../test/support/adapter-contract';
import { jsonAnswer } from '../../../test/support/documented-fake';
import { SARDINE_FAKE_CLIENT, startSardineFake, type SardineFake } from '../../../test/support/sardine-fake';
import type { CheckoutOrder, ProviderMode } from '../../provider-contract';
import { createProviderHttpClient, type ProviderHttpClient } from '../../support/provider-http-client';
import { sardine } from './sardine-adapter';

const WEBHOOK_SECRET = 'whsec_C2FyZGluZS13ZWJob29rLXNpZ25pbmctc2VjcmV0';
/** Basic base64(clientId:clientSecret), written here from the documented form. */
const AUTHORIZATION = `Basic ${Buffer.from(`${SARDINE_FAKE_CLIENT.id}:${SARDINE_FAKE_CLIENT.secret}`).toString('base64')}`;

let fake: SardineFake;
beforeAll(async () => {
  fake = await startSardineFake();
});
afterAll(async () => fake.close());
beforeEach(() => fake.reset());
afterEach(() => expect(fake.problems).toEqual([]));

async function quoteOf(
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  options: { mode?: ProviderMode; clientSecret?: string; http?: ProviderHttpClient } = {},
) {
  const { mode = 'live', clientSecret = SARDINE_FAKE_CLIENT.secret } = options;
  // A given client (MockAgent on Sardine's own hosts) asks the default host: no API_URL then.
  const http = options.http ?? createProviderHttpClient({ maxAttempts: 1 });
  const adapter = await sardine.create(
    { CLIENT_ID: SARDINE_FAKE_CLIENT.id, CLIENT_SECRET: clientSecret, WEBHOOK_SECRET, ...(options.http ? {} : { API_URL: fake.url }) },
    contractContext('sardine', mode, { http }),
  );
  return adapter.quote!(order, { signal: AbortSignal.timeout(3000) });
}

const played = (body: string) => () => ({ status: 200, body });

describe('sardine quote against a local Sardine', () => {
  it.each(['live', 'test'] as const)(
    'asks Get Quote in %s mode for USDC on polygon by the preselected card, and reads quantity and total',
    async (mode) => {
      // 100.00 less 2.50 (2.5 %) and 0.01 of network fee: 97.49 USDC at 1.00; the customer pays the 100.00.
      await expect(quoteOf({ amount: '100.00', currency: 'USD' }, { mode })).resolves.toEqual({
        usdc: 97_490_000n,
        total: '100.00',
        currency: 'USD',
      });
      const [request] = fake.requests;
      expect(request!.method).toBe('GET');
      const url = new URL(request!.path, 'http://fake');
      expect(url.pathname).toBe('/v1/quotes');
      expect(Object.fromEntries(url.searchParams)).toEqual({
        asset_type: 'USDC',
        network: 'polygon',
        total: '100.00',
        currency: 'USD',
        paymentType: 'us_debit',
        quote_type: 'buy',
      });
      expect(request!.headers.authorization).toBe(AUTHORIZATION);
      expect(request!.path).not.toContain(SARDINE_FAKE_CLIENT.secret);
    },
  );

  it('quotes another currency with the international debit card the widget preselects for it', async () => {
    // 50.00 less 1.25 and 0.01: 48.74 EUR buys 52.97826086 USDC at 0.92, truncated to 52.978260.
    await expect(quoteOf({ amount: '50.00', currency: 'EUR' })).resolves.toEqual({ usdc: 52_978_260n, total: '50.00', currency: 'EUR' });
    const query = new URL(fake.requests[0]!.path, 'http://fake').searchParams;
    expect(query.get('paymentType')).toBe('international_debit');
    expect(query.get('currency')).toBe('EUR');
  });

  it('reads the JSON numbers exactly, as the reference’s example writes them, and truncates USDC to base units', async () => {
    fake.script = played(
      '{"quantity":24.99999999999999999,"price":1.0000000000000002,"subtotal":25,"transactionFee":0,"networkFee":0,"total":25.1,"assetType":"usdc","network":"polygon"}',
    );
    await expect(quoteOf({ amount: '25.00', currency: 'USD' })).resolves.toEqual({ usdc: 24_999_999n, total: '25.10', currency: 'USD' });
  });

  it.each([
    ['live', 'https://api.sardine.ai'],
    ['test', 'https://api.sandbox.sardine.ai'],
  ] as const)('asks the %s API host when API_URL is not set', async (mode, origin) => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const asked: string[] = [];
    agent
      .get(origin)
      .intercept({ path: (path) => path.startsWith('/v1/quotes?'), method: 'GET' })
      .reply((request) => {
        asked.push(request.path);
        return {
          statusCode: 200,
          data: '{"quantity":29.19,"price":1,"subtotal":29.19,"transactionFee":0.8,"networkFee":0.01,"total":30,"assetType":"USDC","network":"polygon"}',
        };
      });
    const http = createProviderHttpClient({ dispatcher: agent, maxAttempts: 1 });
    await expect(quoteOf({ amount: '30.00', currency: 'USD' }, { mode, http })).resolves.toEqual({
      usdc: 29_190_000n,
      total: '30.00',
      currency: 'USD',
    });
    expect(asked).toHaveLength(1);
    await agent.close();
  });

  it('reports Sardine’s refusal with its message (the error body is not documented: {"message"} here)', async () => {
    fake.script = () => fake.refusal(400, 'total is below the minimum');
    await expect(quoteOf({ amount: '1.00', currency: 'USD' })).rejects.toThrow(
      /Sardine refused the quote \(HTTP 400: total is below the minimum\)/,
    );
  });

  it('is refused for credentials Sardine does not know', async () => {
    await expect(quoteOf({ amount: '25.00', currency: 'USD' }, { clientSecret: 'a6b0c3d1-0000-4000-8000-000000000000' })).rejects.toThrow(
      /Sardine refused the quote \(HTTP 401/,
    );
  });

  it.each([
    ['not an object', '[]'],
    ['no quantity', '{"total":25,"assetType":"USDC","network":"polygon"}'],
    ['no total', '{"quantity":24.3,"assetType":"USDC","network":"polygon"}'],
    ['a string for quantity', '{"quantity":"24.3","total":25,"assetType":"USDC","network":"polygon"}'],
    ['a string for total', '{"quantity":24.3,"total":"25","assetType":"USDC","network":"polygon"}'],
    ['a zero quantity', '{"quantity":0,"total":25,"assetType":"USDC","network":"polygon"}'],
    ['another asset', '{"quantity":0.0118,"total":25,"assetType":"ETH","network":"polygon"}'],
    ['another network', '{"quantity":24.3,"total":25,"assetType":"USDC","network":"ethereum"}'],
  ])('refuses a malformed answer: %s', async (_why, body) => {
    fake.script = () => jsonAnswer(200, JSON.parse(body));
    await expect(quoteOf({ amount: '25.00', currency: 'USD' })).rejects.toThrow(/Sardine's quote is malformed/);
  });
});
