import { generateKeyPairSync } from 'node:crypto';
import { CONTRACT_NOW_MS, contractContext } from '../../../test/support/adapter-contract';
import { startCoinbaseFake, type CoinbaseFake } from '../../../test/support/coinbase-fake';
import { jsonAnswer } from '../../../test/support/documented-fake';
import type { CheckoutOrder, LocatedQuote, ProviderMode } from '../../provider-contract';
import { createProviderHttpClient } from '../../support/provider-http-client';
import { coinbase } from './coinbase-adapter';

const ed = generateKeyPairSync('ed25519');
const edJwk = ed.privateKey.export({ format: 'jwk' });
const SECRET = Buffer.concat([Buffer.from(edJwk.d!, 'base64url'), Buffer.from(edJwk.x!, 'base64url')]).toString('base64');
const KEY_ID = '2636c881-b44e-4263-b05d-fb10a5ad1836';

let fake: CoinbaseFake;
beforeAll(async () => {
  fake = await startCoinbaseFake({ keyId: KEY_ID, publicKey: ed.publicKey, algorithm: 'EdDSA' }, () => CONTRACT_NOW_MS);
});
afterAll(async () => fake.close());
beforeEach(() => fake.reset());
afterEach(() => expect(fake.problems).toEqual([]));

async function located(mode: ProviderMode = 'live'): Promise<LocatedQuote> {
  const http = createProviderHttpClient({ attemptTimeoutMs: 1000, maxAttempts: 1 });
  const adapter = await coinbase.create({ KEY_ID, KEY_SECRET: SECRET, API_URL: fake.url }, contractContext('coinbase', mode, { http }));
  expect(adapter.quote).toBeUndefined();
  return adapter.locatedQuote!;
}

const quoteOf = async (order: Pick<CheckoutOrder, 'amount' | 'currency'>, location: { country: string; subdivision?: string }) =>
  (await located()).quote({ ...order, location }, { signal: AbortSignal.timeout(3000) });

describe('coinbase buy quote against a local CDP API', () => {
  it.each(['live', 'test'] as const)(
    'asks in %s mode for USDC on polygon by card for the customer’s country and state, and reads the USDC and the total',
    async (mode) => {
      const quote = (await located(mode)).quote(
        { amount: '100.00', currency: 'USD', location: { country: 'US', subdivision: 'TX' } },
        { signal: AbortSignal.timeout(3000) },
      );
      // 100.00 less 2.50 (2.5 %) and 0.01 of network fee: 97.49 USDC; the customer pays the 100.00.
      await expect(quote).resolves.toEqual({ usdc: 97_490_000n, total: '100.00', currency: 'USD' });
      const [request] = fake.requests;
      expect(request!.method).toBe('POST');
      expect(JSON.parse(request!.body)).toEqual({
        purchaseCurrency: 'USDC',
        purchaseNetwork: 'polygon',
        paymentAmount: '100.00',
        paymentCurrency: 'USD',
        paymentMethod: 'CARD',
        country: 'US',
        subdivision: 'TX',
      });
      // The CDP JWT names this call (the fake verifies its signature and claims).
      expect(request!.jwt?.claims.uris).toEqual([`POST ${new URL(fake.url).host}/onramp/v1/buy/quote`]);
    },
  );

  it('quotes a customer outside the US without a subdivision, in the order’s currency', async () => {
    // GBP at 1.25: 48.74 of 50.00 left after the fees buys 60.925 USDC.
    await expect(quoteOf({ amount: '50.00', currency: 'GBP' }, { country: 'GB' })).resolves.toEqual({
      usdc: 60_925_000n,
      total: '50.00',
      currency: 'GBP',
    });
    expect(JSON.parse(fake.requests[0]!.body)).not.toHaveProperty('subdivision');
  });

  it('prices a location only when Coinbase can quote it: a US customer needs their state', async () => {
    const quotes = await located();
    expect(quotes.prices({ country: 'GB' })).toBe(true);
    expect(quotes.prices({ country: 'CA', subdivision: 'ON' })).toBe(true);
    expect(quotes.prices({ country: 'US', subdivision: 'NY' })).toBe(true);
    expect(quotes.prices({ country: 'US' })).toBe(false);
  });

  it('reads the camelCase answer of the reference’s older copy too', async () => {
    fake.script = () =>
      jsonAnswer(200, {
        paymentTotal: { currency: 'USD', value: '25.00' },
        purchaseAmount: { currency: 'USDC', value: '24.1234567' },
        quoteId: 'q',
      });
    await expect(quoteOf({ amount: '25.00', currency: 'USD' }, { country: 'CA' })).resolves.toEqual({
      usdc: 24_123_456n,
      total: '25.00',
      currency: 'USD',
    });
  });

  it('refuses a total Coinbase fell back to USD for: a currency it does not take is no quote for this order', async () => {
    await expect(quoteOf({ amount: '50.00', currency: 'AUD' }, { country: 'GB' })).rejects.toThrow(
      /Coinbase's quote is malformed: currency is "USD", asked for AUD/,
    );
  });

  it('reports Coinbase’s error answer', async () => {
    fake.script = () => fake.refusal(400, 'Country not supported');
    await expect(quoteOf({ amount: '25.00', currency: 'USD' }, { country: 'GB' })).rejects.toThrow(
      /Coinbase refused the quote \(HTTP 400: Country not supported\)/,
    );
  });

  it.each([
    ['no purchase amount', { payment_total: { currency: 'USD', value: '25.00' } }],
    ['another crypto', { payment_total: { currency: 'USD', value: '25.00' }, purchase_amount: { currency: 'ETH', value: '0.01' } }],
    ['a number for a value', { payment_total: { currency: 'USD', value: 25 }, purchase_amount: { currency: 'USDC', value: '24.00' } }],
    ['a zero purchase', { payment_total: { currency: 'USD', value: '25.00' }, purchase_amount: { currency: 'USDC', value: '0' } }],
  ])('refuses a malformed answer: %s', async (_why, body) => {
    fake.script = () => jsonAnswer(200, body);
    await expect(quoteOf({ amount: '25.00', currency: 'USD' }, { country: 'GB' })).rejects.toThrow(/Coinbase's quote is malformed/);
  });
});
