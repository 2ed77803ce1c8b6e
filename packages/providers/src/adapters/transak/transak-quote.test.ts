import { contractContext } from '../../../test/support/adapter-contract';
import { startTransakQuoteFake, type QuoteFake } from '../../../test/support/quote-api-fake';
import { FAKE_API_KEY, FAKE_API_SECRET } from '../../../test/support/transak-fake';
import type { ProviderAdapter } from '../../provider-contract';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { transak } from './transak-adapter';

let fake: QuoteFake;

beforeAll(async () => {
  fake = await startTransakQuoteFake(FAKE_API_KEY);
});
afterAll(async () => fake.close());
beforeEach(() => fake.reset());
afterEach(() => expect(fake.problems).toEqual([]));

async function adapter(apiKey = FAKE_API_KEY): Promise<ProviderAdapter> {
  return transak.create(
    { API_KEY: apiKey, API_SECRET: FAKE_API_SECRET, API_URL: fake.url, GATEWAY_URL: fake.url },
    contractContext('transak', 'test', { http: createProviderHttpClient({ maxAttempts: 1 }) }),
  );
}

const signal = () => new AbortController().signal;

describe('transak quote', () => {
  it('asks Get Price with the partner key alone and reads what the customer pays and the wallet receives', async () => {
    fake.feeBps = 250;
    const quote = await (await adapter()).quote!({ amount: '200.00', currency: 'EUR' }, { signal: signal() });
    expect(quote).toEqual({ usdc: 195_000_000n, total: '200.00', currency: 'EUR' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.method).toBe('GET');
  });

  it('reads JSON numbers exactly, USDC truncated to base units', async () => {
    fake.script = () => ({
      status: 200,
      body: '{"response":{"fiatCurrency":"USD","cryptoCurrency":"USDC","network":"polygon","isBuyOrSell":"BUY","fiatAmount":2.5e1,"cryptoAmount":24.3333339999999999}}',
    });
    const quote = await (await adapter()).quote!({ amount: '25.00', currency: 'USD' }, { signal: signal() });
    expect(quote).toEqual({ usdc: 24_333_333n, total: '25.00', currency: 'USD' });
  });

  it('reports Transak’s documented error answer', async () => {
    fake.script = () => fake.refusal(400, 'Minimum fiatAmount is 30');
    await expect((await adapter()).quote!({ amount: '5.00', currency: 'USD' }, { signal: signal() })).rejects.toThrow(
      /Transak refused the quote \(HTTP 400: Minimum fiatAmount is 30\)/,
    );
  });

  it('is refused by the fake with a key it does not know', async () => {
    await expect(
      (await adapter('b3b1c2d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d')).quote!({ amount: '25.00', currency: 'USD' }, { signal: signal() }),
    ).rejects.toThrow(/HTTP 401/);
  });

  it.each([
    ['no response object', '{"data":{}}'],
    ['another network', '{"response":{"network":"ethereum","fiatAmount":25,"cryptoAmount":24}}'],
    ['another fiat', '{"response":{"fiatCurrency":"GBP","fiatAmount":25,"cryptoAmount":24}}'],
    ['cryptoAmount as zero', '{"response":{"fiatAmount":25,"cryptoAmount":0}}'],
    ['not JSON', '<html>'],
    ['an amount of 60 digits', `{"response":{"fiatAmount":25,"cryptoAmount":24.${'9'.repeat(58)}}}`],
  ])('refuses a malformed answer: %s', async (_why, body) => {
    fake.script = () => ({ status: 200, body });
    await expect((await adapter()).quote!({ amount: '25.00', currency: 'USD' }, { signal: signal() })).rejects.toThrow(
      /Transak's quote is malformed/,
    );
  });
});
