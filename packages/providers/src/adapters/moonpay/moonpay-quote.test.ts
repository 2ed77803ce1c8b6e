import { ProviderCheckoutError, type CheckoutOrder, type ProviderMode, type ProviderModule } from '../../provider-contract';
import { ProviderUnreachableError, type ProviderHttpClient, type ProviderHttpRequest } from '../../support/provider-http-client';
import { mockProviderApi } from '../../../test/support/mock-provider-api';
import { NO_TOKENS, sampleOrder } from '../../../test/support/adapter-contract';
import { interac } from '../moonpay-interac/moonpay-interac-adapter';
import { paypal } from '../paypal/paypal-adapter';
import { moonpay } from './moonpay-adapter';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { MOONPAY_KEYS } from '../../../test/support/moonpay-account';

const { live, test } = MOONPAY_KEYS;

/** The API origin and path of "Get Real-time Buy quote" (dev.moonpay.com/api-reference/widget/getbuyquote). */
const API_ORIGIN = 'https://api.moonpay.com';
const QUOTE_PATH = '/v3/currencies/usdc_polygon/buy_quote';

interface Answer {
  statusCode: number;
  body: string;
}

/**
 * A body in the documented shape, written as text so the numbers reach the adapter exactly as
 * given (a JS object would pass them through a float on JSON.stringify).
 */
function buyQuoteBody({
  quoteCurrencyAmount = '24.51',
  totalAmount = '25',
  baseCurrencyCode = 'usd',
  quoteCurrencyCode = 'usdc_polygon',
} = {}): string {
  return `{
    "accountId": "717a8a80-5c17-46f9-84f8-a5253c372f51",
    "baseCurrency": { "type": "fiat", "code": "${baseCurrencyCode}", "precision": 2, "minBuyAmount": 20, "maxBuyAmount": 9000 },
    "baseCurrencyCode": "${baseCurrencyCode}",
    "baseCurrencyAmount": 23.16,
    "quoteCurrency": { "type": "crypto", "name": "USD Coin (Polygon)", "code": "${quoteCurrencyCode}", "precision": 2, "metadata": { "chainId": "137", "networkCode": "polygon" } },
    "quoteCurrencyCode": "${quoteCurrencyCode}",
    "quoteCurrencyAmount": ${quoteCurrencyAmount},
    "quoteCurrencyPrice": 0.9999,
    "paymentMethod": "credit_debit_card",
    "feeAmount": 1.83,
    "extraFeePercentage": 0,
    "extraFeeAmount": 0,
    "networkFeeAmount": 0.01,
    "networkFeeAmountNonRefundable": false,
    "totalAmount": ${totalAmount},
    "externalId": null,
    "externalCustomerId": null,
    "expiresIn": 1800,
    "expiresAt": "2026-11-25T12:30:00.000Z"
  }`;
}

/** The query the reference documents: the key, then the `query` object's properties (form, exploded). */
const DOCUMENTED_QUERY = new Set([
  'apiKey',
  'baseCurrencyCode',
  'quoteCurrencyAmount',
  'baseCurrencyAmount',
  'extraFeePercentage',
  'paymentMethod',
  'areFeesIncluded',
]);

/** What the fake refuses, as the reference has it: a parameter it does not document, or no amount (one of the two is REQUIRED). */
function undocumented(query: URLSearchParams): string | undefined {
  const unknown = [...query.keys()].find((name) => !DOCUMENTED_QUERY.has(name));
  if (unknown !== undefined) return `unknown parameter ${unknown}`;
  if (!query.has('baseCurrencyAmount') && !query.has('quoteCurrencyAmount')) return 'baseCurrencyAmount or quoteCurrencyAmount is required';
  return undefined;
}

/**
 * MoonPay's quote API behind undici's MockAgent: it answers only the documented path with the
 * documented query (anything else is a 400), and records what it was asked. Nothing reaches the network.
 */
function fakeMoonpayApi(answer: Answer) {
  const requests: URL[] = [];
  const { agent, http } = mockProviderApi();
  agent
    .get(API_ORIGIN)
    .intercept({ path: (path) => path.startsWith(`${QUOTE_PATH}?`), method: 'GET' })
    .reply((request) => {
      const url = new URL(request.path, API_ORIGIN);
      requests.push(url);
      const refusal = undocumented(url.searchParams);
      const { statusCode, body } =
        refusal === undefined ? answer : { statusCode: 400, body: JSON.stringify({ message: refusal, type: 'BadRequestError' }) };
      return { statusCode, data: body, responseOptions: { headers: { 'content-type': 'application/json' } } };
    })
    .persist();
  return { requests, agent, http };
}

async function adapterOf(
  module: ProviderModule<typeof moonpay.descriptor.settings>,
  settings: typeof live,
  mode: ProviderMode,
  http: ProviderHttpClient,
) {
  return module.create(settings, {
    mode,
    webhookUrl: `https://pay.example.org/webhooks/${module.descriptor.id}`,
    http,
    tokens: NO_TOKENS,
    now: Date.now,
  });
}

async function quoteFrom(answer: Answer, order: Pick<CheckoutOrder, 'amount' | 'currency'> = { amount: '25.00', currency: 'USD' }) {
  const fake = fakeMoonpayApi(answer);
  const adapter = await adapterOf(moonpay, live, 'live', fake.http);
  const quote = adapter.quote!(order, { signal: new AbortController().signal });
  return { quote, requests: fake.requests };
}

describe('moonpay quote', () => {
  it('asks the documented endpoint with the documented query and reads the answer', async () => {
    const { quote, requests } = await quoteFrom({ statusCode: 200, body: buyQuoteBody() });
    await expect(quote).resolves.toEqual({ usdc: 24_510_000n, total: '25.00', currency: 'USD' });
    expect(requests).toHaveLength(1);
    const [request] = requests as [URL];
    expect(request.pathname).toBe(QUOTE_PATH);
    expect(Object.fromEntries(request.searchParams)).toEqual({
      apiKey: live.API_KEY,
      baseCurrencyCode: 'usd',
      baseCurrencyAmount: '25.00',
      paymentMethod: 'credit_debit_card',
      areFeesIncluded: 'true',
    });
  });

  it('quotes the currency the checkout URL buys', async () => {
    const fake = fakeMoonpayApi({ statusCode: 200, body: buyQuoteBody({ baseCurrencyCode: 'eur' }) });
    const adapter = await adapterOf(moonpay, live, 'live', fake.http);
    const { url } = redirectCheckout(
      await adapter.createCheckout(sampleOrder('EUR'), { idempotencyKey: 'k', signal: new AbortController().signal }),
    );
    await adapter.quote!({ amount: '149.99', currency: 'EUR' }, { signal: new AbortController().signal });
    expect(fake.requests[0]?.pathname).toBe(`/v3/currencies/${new URL(url).searchParams.get('currencyCode')}/buy_quote`);
  });

  it.each([
    ['24.512345678', 24_512_345n],
    // A float reads this as 25 (25000000n): the exact value is below it.
    ['24.9999999999999999', 24_999_999n],
    ['0.000001', 1n],
    ['0.0000009', 0n],
    ['1000000', 1_000_000_000_000n],
  ])('converts quoteCurrencyAmount %s to %p base units, truncated, never rounded up', async (amount, usdc) => {
    const { quote } = await quoteFrom({ statusCode: 200, body: buyQuoteBody({ quoteCurrencyAmount: amount }) });
    await expect(quote).resolves.toMatchObject({ usdc });
  });

  it.each([
    ['25', '25.00'],
    ['25.5', '25.50'],
    ['150.125', '150.125'],
    ['0.99', '0.99'],
  ])('keeps totalAmount %s exactly as %p', async (totalAmount, total) => {
    const { quote } = await quoteFrom({ statusCode: 200, body: buyQuoteBody({ totalAmount }) });
    await expect(quote).resolves.toMatchObject({ total });
  });

  it('reads numbers with an exponent exactly', async () => {
    const { quote } = await quoteFrom({
      statusCode: 200,
      body: buyQuoteBody({ quoteCurrencyAmount: '2.4512345678e1', totalAmount: '2.5E+1' }),
    });
    await expect(quote).resolves.toEqual({ usdc: 24_512_345n, total: '25.00', currency: 'USD' });
    const small = await quoteFrom({
      statusCode: 200,
      body: buyQuoteBody({ quoteCurrencyAmount: '2451234567e-8', totalAmount: '2500E-2' }),
    });
    await expect(small.quote).resolves.toEqual({ usdc: 24_512_345n, total: '25.00', currency: 'USD' });
  });

  it('uses the same API host with a pk_test_ key in test mode (the key selects the sandbox)', async () => {
    const fake = fakeMoonpayApi({ statusCode: 200, body: buyQuoteBody() });
    const adapter = await adapterOf(moonpay, test, 'test', fake.http);
    await expect(adapter.quote!({ amount: '25.00', currency: 'USD' }, { signal: new AbortController().signal })).resolves.toMatchObject({
      usdc: 24_510_000n,
    });
    expect(fake.requests[0]?.searchParams.get('apiKey')).toBe(test.API_KEY);
  });

  it("quotes Interac e-Transfer as MoonPay's interac payment method, in CAD", async () => {
    const fake = fakeMoonpayApi({
      statusCode: 200,
      body: buyQuoteBody({ baseCurrencyCode: 'cad', quoteCurrencyAmount: '108.123456789', totalAmount: '150' }),
    });
    const adapter = await adapterOf(interac, live, 'live', fake.http);
    await expect(adapter.quote!({ amount: '150.00', currency: 'CAD' }, { signal: new AbortController().signal })).resolves.toEqual({
      usdc: 108_123_456n,
      total: '150.00',
      currency: 'CAD',
    });
    expect(Object.fromEntries(fake.requests[0]!.searchParams)).toMatchObject({
      paymentMethod: 'interac',
      baseCurrencyCode: 'cad',
      baseCurrencyAmount: '150.00',
    });
  });

  it('prices a fixed USDC amount (fees on top) with quoteCurrencyAmount instead of baseCurrencyAmount', async () => {
    const fake = fakeMoonpayApi({ statusCode: 200, body: buyQuoteBody({ quoteCurrencyAmount: '25.252525', totalAmount: '26.57' }) });
    const adapter = await adapterOf(moonpay, live, 'live', fake.http);
    await expect(adapter.quoteUsdc!({ usdc: 25_252_525n, currency: 'USD' }, { signal: new AbortController().signal })).resolves.toEqual({
      usdc: 25_252_525n,
      total: '26.57',
      currency: 'USD',
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.pathname).toBe(QUOTE_PATH);
    // areFeesIncluded is described for baseCurrencyAmount only: left out, as is the fiat amount.
    expect(Object.fromEntries(fake.requests[0]!.searchParams)).toEqual({
      apiKey: live.API_KEY,
      baseCurrencyCode: 'usd',
      quoteCurrencyAmount: '25.252525',
      paymentMethod: 'credit_debit_card',
    });
  });

  it('asks for the USDC as the checkout URL writes it, in the order currency, and reads back what MoonPay answers', async () => {
    const fake = fakeMoonpayApi({
      statusCode: 200,
      body: buyQuoteBody({ baseCurrencyCode: 'eur', quoteCurrencyAmount: '49.99', totalAmount: '48.315' }),
    });
    const adapter = await adapterOf(moonpay, live, 'live', fake.http);
    const signal = new AbortController().signal;
    const { url } = redirectCheckout(
      await adapter.createCheckout({ ...sampleOrder('EUR'), usdc: 50_000_000n }, { idempotencyKey: 'k', signal }),
    );
    await expect(adapter.quoteUsdc!({ usdc: 50_000_000n, currency: 'EUR' }, { signal })).resolves.toEqual({
      usdc: 49_990_000n,
      total: '48.315',
      currency: 'EUR',
    });
    const query = fake.requests[0]!.searchParams;
    expect(query.get('quoteCurrencyAmount')).toBe(new URL(url).searchParams.get('quoteCurrencyAmount'));
    expect(query.get('quoteCurrencyAmount')).toBe('50');
    expect(query.get('baseCurrencyCode')).toBe('eur');
  });

  it('refuses a fixed-USDC answer that is not as documented, or a refusal', async () => {
    for (const answer of [
      { statusCode: 200, body: buyQuoteBody({ quoteCurrencyCode: 'eth' }) },
      { statusCode: 200, body: buyQuoteBody({ totalAmount: '"26.57"' }) },
      { statusCode: 400, body: '{"message":"Invalid quoteCurrencyAmount","type":"BadRequestError"}' },
    ]) {
      const fake = fakeMoonpayApi(answer);
      const adapter = await adapterOf(moonpay, live, 'live', fake.http);
      await expect(
        adapter.quoteUsdc!({ usdc: 25_000_000n, currency: 'USD' }, { signal: new AbortController().signal }),
      ).rejects.toMatchObject({
        name: 'ProviderCheckoutError',
        kind: 'refused',
      });
    }
  });

  it('prices a fixed USDC amount only for MoonPay itself: the payment methods on its account keep the fees inside', async () => {
    const fake = fakeMoonpayApi({ statusCode: 200, body: buyQuoteBody() });
    expect(moonpay.descriptor.fixedUsdc).toBeDefined();
    expect((await adapterOf(moonpay, live, 'live', fake.http)).quoteUsdc).toBeInstanceOf(Function);
    for (const module of [interac, paypal]) {
      expect(module.descriptor.fixedUsdc).toBeUndefined();
      expect((await adapterOf(module, live, 'live', fake.http)).quoteUsdc).toBeUndefined();
    }
  });

  it.each([
    [400, '{"errors":[],"message":"Invalid baseCurrencyAmount","type":"BadRequestError"}', /HTTP 400: Invalid baseCurrencyAmount/],
    [401, '{"message":"Invalid API key","type":"UnauthorizedError"}', /HTTP 401: Invalid API key/],
    [503, '<html>unavailable</html>', /HTTP 503\)/],
  ])('refuses a non-200 answer (%i)', async (statusCode, body, message) => {
    const { quote } = await quoteFrom({ statusCode, body });
    await expect(quote).rejects.toThrow(message);
    await expect(quote).rejects.toMatchObject({ name: 'ProviderCheckoutError', kind: 'refused' });
  });

  it.each([
    ['not JSON', 'Service Unavailable'],
    ['an array', '[]'],
    ['no quoteCurrencyAmount', buyQuoteBody().replace('"quoteCurrencyAmount"', '"cryptoAmount"')],
    ['a string totalAmount', buyQuoteBody({ totalAmount: '"25"' })],
    ['a negative quoteCurrencyAmount', buyQuoteBody({ quoteCurrencyAmount: '-24.51' })],
    ['a zero totalAmount', buyQuoteBody({ totalAmount: '0' })],
    ['an absurd exponent', buyQuoteBody({ quoteCurrencyAmount: '1e999999999' })],
    ['another crypto currency', buyQuoteBody({ quoteCurrencyCode: 'eth' })],
    ['another fiat currency', buyQuoteBody({ baseCurrencyCode: 'eur' })],
  ])('refuses a malformed body: %s', async (_why, body) => {
    const { quote } = await quoteFrom({ statusCode: 200, body });
    await expect(quote).rejects.toThrow(/MoonPay's quote is malformed/);
    await expect(quote).rejects.toMatchObject({ kind: 'refused' });
  });

  it("lets the client's unreachable error pass through", async () => {
    const { http } = mockProviderApi();
    const adapter = await adapterOf(moonpay, live, 'live', http);
    const quote = adapter.quote!({ amount: '25.00', currency: 'USD' }, { signal: new AbortController().signal });
    await expect(quote).rejects.toBeInstanceOf(ProviderUnreachableError);
    await expect(quote).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it("calls through context.http: a retryable GET carrying the caller's signal", async () => {
    const seen: ProviderHttpRequest[] = [];
    const http: ProviderHttpClient = {
      request: async (request) => {
        seen.push(request);
        return { statusCode: 200, headers: {}, body: buyQuoteBody() };
      },
      close: async () => undefined,
    };
    const signal = new AbortController().signal;
    const adapter = await adapterOf(moonpay, live, 'live', http);
    await adapter.quote!({ amount: '25.00', currency: 'USD' }, { signal });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'GET', retryable: true, signal });
    expect(new URL(seen[0]!.url).origin).toBe(API_ORIGIN);
  });

  it('is a ProviderCheckoutError a caller can tell from an unreachable one', async () => {
    const { quote } = await quoteFrom({ statusCode: 404, body: '{"message":"Currency not found"}' });
    const error = await quote.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderCheckoutError);
    expect(error).not.toBeInstanceOf(ProviderUnreachableError);
  });
});
