import { parseFiatAmount, type EvmAddress, type ProviderTerms } from '@gateway/domain';
import { PaymentRepository, WalletLookupRepository } from '@gateway/db/payment-redirect';
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

function serviceWith(
  quote: ProviderAdapter['quote'],
  { fixedUsdc = false, customerPaysFees = false, created = [] as unknown[] } = {},
): PaymentService {
  const adapter = {
    descriptor: { ...terms, fees: FEES, ...(fixedUsdc ? { fixedUsdc: { parameter: 'cryptoAmount', source: 'https://x.example' } } : {}) },
    mode: 'test',
    ...(quote ? { quote } : {}),
  } as unknown as ProviderAdapter;
  const noRates: RateReader = {
    current: () => Promise.reject(new Error('a USD order needs no rate')),
  };
  const checkouts = {
    create: async (_adapter: unknown, order: unknown) => {
      created.push(order);
      return { kind: 'redirect', url: 'https://checkout.example/1' };
    },
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
    wallets: new WalletLookupRepository(fixture.db.pool),
    orders: { customerPaysFees, windowHours: 24 },
  });
}

async function expectationOf(
  service: PaymentService,
  wallet: EvmAddress = temporary,
): Promise<{ expected_usdc: string; expected_basis: string; tolerance_bps: number; checkout_usdc: string | null }> {
  const started = await service.begin(
    { temporaryAddress: wallet, amount: parseFiatAmount('50'), currency: 'USD', provider: terms, email: 'jane@shop.io' },
    '203.0.113.7',
    'json',
  );
  const { rows } = await fixture.db.pool.query(
    'SELECT expected_usdc::text, expected_basis, tolerance_bps, checkout_usdc::text FROM payments WHERE id = $1',
    [started.paymentId],
  );
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
    expect(await expectationOf(service)).toEqual({
      expected_usdc: '48210000',
      expected_basis: 'quote',
      tolerance_bps: 100,
      checkout_usdc: null,
    });
    expect(asked).toEqual([{ amount: '50.00', currency: 'USD' }]);
  });

  it('falls back to the documented fees when the quote fails', async () => {
    const service = serviceWith(() => Promise.reject(new Error('503 from the provider')));
    // 50 USD less 4 % (the middle of 3–5 %); tolerance 1 % + 1 %.
    expect(await expectationOf(service)).toEqual({
      expected_usdc: '48000000',
      expected_basis: 'estimate',
      tolerance_bps: 200,
      checkout_usdc: null,
    });
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

describe('fees on top (issue 32): the checkout fixes the USDC that leaves the shop the order', () => {
  const onTop = '0x6666666666666666666666666666666666666666' as EvmAddress;
  const inside = '0x7777777777777777777777777777777777777777' as EvmAddress;
  const withAffiliate = '0x8888888888888888888888888888888888888888' as EvmAddress;
  beforeAll(async () => {
    await fixture.insertWallet({
      temporary: onTop,
      addressIn: 'unused',
      callbackUrl: 'https://shop.io/ipn?order=top',
      customerPaysFee: true,
    });
    await fixture.insertWallet({
      temporary: inside,
      addressIn: 'unused',
      callbackUrl: 'https://shop.io/ipn?order=in',
      customerPaysFee: false,
    });
    await fixture.insertWallet({
      temporary: withAffiliate,
      addressIn: 'unused',
      callbackUrl: 'https://shop.io/ipn?order=aff',
      customerPaysFee: true,
      affiliateFeeBps: 50,
    });
  });

  it("asks the provider for the order's value grossed up for the 1 % platform fee, and expects exactly that", async () => {
    const created: unknown[] = [];
    const asked: unknown[] = [];
    const service = serviceWith(
      async () => {
        asked.push('quote');
        return quoteOf(48_210_000n);
      },
      { fixedUsdc: true, created },
    );
    // 50 USD: the smallest deposit whose 99 % (rounded as settlement rounds) is 50 USDC is 50.505050.
    expect(await expectationOf(service, onTop)).toEqual({
      expected_usdc: '50505050',
      expected_basis: 'quote',
      tolerance_bps: 100,
      checkout_usdc: '50505050',
    });
    expect(created).toEqual([expect.objectContaining({ amount: '50.00', usdc: 50_505_050n })]);
    // What it brings is fixed: the provider's quote is not asked.
    expect(asked).toEqual([]);
  });

  it("grosses up for the affiliate's share too", async () => {
    // 1 % + 0.5 %: the smallest deposit whose 98.5 % is 50 USDC, rounded as settlement rounds.
    expect((await expectationOf(serviceWith(undefined, { fixedUsdc: true }), withAffiliate)).checkout_usdc).toBe('50761421');
  });

  it("follows the operator's CUSTOMER_PAYS_FEES where the wallet says nothing, and the wallet's 0 over the operator's on", async () => {
    expect((await expectationOf(serviceWith(undefined, { fixedUsdc: true, customerPaysFees: true }))).checkout_usdc).toBe('50505050');
    expect((await expectationOf(serviceWith(undefined, { fixedUsdc: true, customerPaysFees: true }), inside)).checkout_usdc).toBeNull();
  });

  it('keeps the fees inside at a provider that cannot sell a fixed amount, whoever pays', async () => {
    const created: unknown[] = [];
    const row = await expectationOf(serviceWith(undefined, { fixedUsdc: false, created }), onTop);
    expect(row).toMatchObject({ expected_basis: 'estimate', checkout_usdc: null });
    expect(created).toEqual([expect.not.objectContaining({ usdc: expect.anything() })]);
  });
});
