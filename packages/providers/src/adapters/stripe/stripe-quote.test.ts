import { contractContext } from '../../../test/support/adapter-contract';
import { startStripeQuoteFake, type QuoteFake } from '../../../test/support/quote-api-fake';
import { STRIPE_FAKE_SECRET } from '../../../test/support/stripe-fake';
import { ProviderCheckoutError, type ProviderAdapter } from '../../provider-contract';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { stripe } from './stripe-adapter';

const WHSEC = 'whsec_5f3a1c9e7b2d4f6a8c0e1b3d5f7a9c2e';
let fake: QuoteFake;

beforeAll(async () => {
  fake = await startStripeQuoteFake(Object.values(STRIPE_FAKE_SECRET));
});
afterAll(async () => fake.close());
beforeEach(() => fake.reset());
afterEach(() => expect(fake.problems).toEqual([]));

async function adapter(secret = STRIPE_FAKE_SECRET.test): Promise<ProviderAdapter> {
  return stripe.create(
    { SECRET_KEY: secret, WEBHOOK_SECRET: WHSEC, API_URL: fake.url },
    contractContext('stripe', 'test', { http: createProviderHttpClient({ maxAttempts: 1 }) }),
  );
}

const signal = () => new AbortController().signal;

describe('stripe quote', () => {
  it('asks Retrieve CryptoOnrampQuotes for USDC on polygon and reads what the customer pays, fees on top', async () => {
    fake.feeBps = 300;
    const quote = await (await adapter()).quote!({ amount: '100.00', currency: 'USD' }, { signal: signal() });
    expect(quote).toEqual({ usdc: 100_000_000n, total: '103.00', currency: 'USD' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.method).toBe('GET');
  });

  it('prices a fixed USDC amount (fees on top) with destination_amount instead of source_amount', async () => {
    fake.feeBps = 300;
    const quote = await (await adapter()).quoteUsdc!({ usdc: 25_252_525n, currency: 'USD' }, { signal: signal() });
    // 25.252525 USDC costs 25.26 in cents rounded up, 3 % (0.75) on top.
    expect(quote).toEqual({ usdc: 25_252_525n, total: '26.01', currency: 'USD' });
    const query = new URL(fake.requests[0]!.path, 'http://x').searchParams;
    expect(query.get('destination_amount')).toBe('25.252525');
    expect(query.has('source_amount')).toBe(false);
  });

  it('keeps amounts exactly as Stripe writes them', async () => {
    fake.script = () => ({
      status: 200,
      body: JSON.stringify({
        object: 'crypto.onramp.quotes',
        source_currency: 'usd',
        destination_network_quotes: {
          polygon: [
            { destination_currency: 'matic', destination_amount: '9.1', source_total_amount: '1.00' },
            { destination_currency: 'usdc', destination_amount: '24.9999999999999999', source_total_amount: '26.071' },
          ],
        },
      }),
    });
    const quote = await (await adapter()).quote!({ amount: '25.00', currency: 'USD' }, { signal: signal() });
    expect(quote).toEqual({ usdc: 24_999_999n, total: '26.071', currency: 'USD' });
  });

  it('refuses an order in another currency without a call: Stripe quotes usd only', async () => {
    await expect((await adapter()).quote!({ amount: '25.00', currency: 'EUR' }, { signal: signal() })).rejects.toThrow(/only usd/);
    expect(fake.requests).toHaveLength(0);
  });

  it('reports Stripe’s documented error answer', async () => {
    fake.script = () => fake.refusal(400, 'source_amount is too small');
    const quote = (await adapter()).quote!({ amount: '0.50', currency: 'USD' }, { signal: signal() });
    await expect(quote).rejects.toThrow(ProviderCheckoutError);
    await expect((await adapter()).quote!({ amount: '0.50', currency: 'USD' }, { signal: signal() })).rejects.toThrow(
      /HTTP 400: source_amount is too small/,
    );
  });

  it('is refused by the fake with a key it does not know', async () => {
    await expect(
      (await adapter(STRIPE_FAKE_SECRET.live.replace(/0+$/, '1111111111'))).quote!(
        { amount: '25.00', currency: 'USD' },
        { signal: signal() },
      ),
    ).rejects.toThrow(/HTTP 401/);
  });

  it.each([
    ['no polygon list', { destination_network_quotes: {} }],
    [
      'no usdc entry',
      { destination_network_quotes: { polygon: [{ destination_currency: 'eth', destination_amount: '1', source_total_amount: '2' }] } },
    ],
    [
      'a negative amount',
      { destination_network_quotes: { polygon: [{ destination_currency: 'usdc', destination_amount: '-1', source_total_amount: '2' }] } },
    ],
    ['another source currency', { source_currency: 'eur', destination_network_quotes: { polygon: [] } }],
  ])('refuses a malformed answer: %s', async (_why, body) => {
    fake.script = () => ({ status: 200, body: JSON.stringify(body) });
    await expect((await adapter()).quote!({ amount: '25.00', currency: 'USD' }, { signal: signal() })).rejects.toThrow(
      /Stripe's quote is malformed/,
    );
  });
});
