import { parseFiatAmount, type EvmAddress, type ProviderTerms } from '@gateway/domain';
import { PaymentRepository } from '@gateway/db/payment-redirect';
import type { ProviderAdapter, ProviderQuote, ProviderRegistry } from '@gateway/providers';
import type { RateReader } from '@gateway/rates';
import { createTestRedis } from '@gateway/testkit';
import { PaymentService } from '../../src/services/checkout/payment-service';
import { QuoteService } from '../../src/services/quotes/quote-service';
import type { ProviderCheckout } from '../../src/services/checkout/provider-checkout';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// The service as Process Payment and the second chance run it, with a real PostgreSQL and the quote
// service on a real Redis (a fresh prefix per case: no case sees another's cached quote), around an
// adapter whose quote answers as each case needs: the quote's figure when it gives one in time.
const fixture = paymentRedirectFixture('quoted_expectation');
const redises: ReturnType<typeof createTestRedis>[] = [];
afterAll(async () => Promise.all(redises.map(async (redis) => redis.close())));
const temporary = '0x5555555555555555555555555555555555555555' as EvmAddress;
const FEES = { minBps: 300, maxBps: 500, source: 'https://example.com/fees' };
const terms = { id: 'quoter', displayName: 'Quoter', currency: 'any', minimum: '1', minimumCurrency: 'USD', fees: FEES } as ProviderTerms;

function serviceWith(quote: ProviderAdapter['quote']): PaymentService {
  const adapter = {
    descriptor: { ...terms, fees: FEES },
    mode: 'test',
    ...(quote ? { quote } : {}),
  } as unknown as ProviderAdapter;
  const noRates: RateReader = {
    current: () => Promise.reject(new Error('a USD order needs no rate')),
  };
  const checkouts = {
    create: async () => ({ kind: 'redirect', url: 'https://checkout.example/1' }),
    created: () => undefined,
  } as unknown as ProviderCheckout;
  const providers = { adapter: () => adapter } as unknown as ProviderRegistry;
  const redis = createTestRedis('quoted_expectation');
  redises.push(redis);
  const quotes = new QuoteService({
    redis: redis.redis,
    keyPrefix: redis.prefix,
    providers,
    rates: noRates,
    settings: { cacheMs: 60_000, callTimeoutMs: 3_000 },
  });
  return new PaymentService({
    payments: new PaymentRepository(fixture.db.pool),
    providers,
    keys: fixture.config().keys,
    rates: noRates,
    quotes,
    checkouts,
    publicUrl: 'http://127.0.0.1:3200',
    orderAttempts: 100,
    orders: { windowHours: 24 },
  });
}

async function expectationOf(service: PaymentService): Promise<{ expected_usdc: string; expected_basis: string; tolerance_bps: number }> {
  const started = await service.begin(
    { temporaryAddress: temporary, amount: parseFiatAmount('50'), currency: 'USD', provider: terms, email: 'jane@shop.io' },
    '203.0.113.7',
    'json',
  );
  const { rows } = await fixture.db.pool.query('SELECT expected_usdc::text, expected_basis, tolerance_bps FROM payments WHERE id = $1', [
    started.paymentId,
  ]);
  return rows[0];
}

const quoteOf = (usdc: bigint, currency = 'USD'): ProviderQuote => ({ usdc, total: '50.00', currency }) as ProviderQuote;

beforeAll(async () => {
  await fixture.insertWallet({ temporary, addressIn: 'unused', callbackUrl: 'https://shop.io/ipn?order=quoted' });
});

describe("an attempt's expectation from its provider's quote", () => {
  it("records the quote's USDC, marked as a quote, with a quote's tolerance", async () => {
    const asked: unknown[] = [];
    const service = serviceWith(async (order) => {
      asked.push(order);
      return quoteOf(48_210_000n);
    });
    expect(await expectationOf(service)).toEqual({ expected_usdc: '48210000', expected_basis: 'quote', tolerance_bps: 100 });
    expect(asked).toEqual([{ amount: '50.00', currency: 'USD' }]);
  });

  it('falls back to the documented fees when the quote fails', async () => {
    const service = serviceWith(() => Promise.reject(new Error('503 from the provider')));
    // 50 USD less 4 % (the middle of 3–5 %); tolerance 1 % + 1 %.
    expect(await expectationOf(service)).toEqual({ expected_usdc: '48000000', expected_basis: 'estimate', tolerance_bps: 200 });
  });

  it('falls back when the quote is for another currency than the order', async () => {
    const service = serviceWith(async () => quoteOf(48_210_000n, 'EUR'));
    expect((await expectationOf(service)).expected_basis).toBe('estimate');
  });

  it('does not hold the customer back for a quote that does not come', async () => {
    const service = serviceWith(
      (_order, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    );
    const started = Date.now();
    expect((await expectationOf(service)).expected_basis).toBe('estimate');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('estimates for an adapter without a quote', async () => {
    expect((await expectationOf(serviceWith(undefined))).expected_basis).toBe('estimate');
  });
});
