import { contractContext } from '../../../test/support/adapter-contract';
import type { CheckoutOrder, ProviderMode } from '../../provider-contract';
import { mockProviderApi } from '../../../test/support/mock-provider-api';
import { banxa, type BanxaSettings } from './banxa-adapter';

const settings: Record<ProviderMode, BanxaSettings> = {
  live: {
    PARTNER_REF: 'shoppay',
    API_KEY: 'banxa-live-x-api-key-0123',
    HMAC_KEY: 'banxa-live-hmac-key-89ab',
    HMAC_SECRET: 'banxa-live-hmac-secret-4567',
  },
  test: {
    PARTNER_REF: 'shoppay',
    API_KEY: 'banxa-sandbox-x-api-key-0123',
    HMAC_KEY: 'banxa-sandbox-hmac-key-89ab',
    HMAC_SECRET: 'banxa-sandbox-hmac-secret-4567',
  },
};
/** The hosts "Get a Quote" names: production and sandbox share paths. */
const API_ORIGINS: Record<ProviderMode, string> = { live: 'https://api.banxa.com', test: 'https://api.banxa-sandbox.com' };
const QUOTE_PATH = '/shoppay/v2/quotes/buy';

type Answer = { statusCode: number; body: string } | ((query: URLSearchParams) => { statusCode: number; body: string });

/**
 * Banxa's quote API behind undici's MockAgent, from the "Get a Quote" page: GET on the partner's
 * path with the v2 API key in `x-api-key` and the documented query (else 401 / 400 with Banxa's
 * `message`), answering decimal strings; `problems` lists what was not as documented.
 */
function fakeBanxaQuotes(mode: ProviderMode, answer?: Answer) {
  const requests: URL[] = [];
  const problems: string[] = [];
  const { agent, http } = mockProviderApi();
  agent
    .get(API_ORIGINS[mode])
    .intercept({ path: (path) => path.split('?')[0] === QUOTE_PATH, method: 'GET' })
    .reply((request) => {
      const url = new URL(request.path, API_ORIGINS[mode]);
      requests.push(url);
      const headers = request.headers as Record<string, string>;
      const apiKey = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
      if (apiKey !== settings[mode].API_KEY) return { statusCode: 401, data: { message: 'Unauthorized' } };
      const query = url.searchParams;
      const documented = {
        fiat: /^[A-Z]{3}$/,
        crypto: /^USDC$/,
        blockchain: /^MATIC$/,
        paymentMethodId: /^debit-credit-card$/,
        fiatAmount: /^\d+\.\d{2}$/,
      };
      for (const name of new Set([...query.keys(), ...Object.keys(documented)])) {
        const pattern = documented[name as keyof typeof documented];
        if (!pattern || query.getAll(name).length !== 1 || !pattern.test(query.get(name) ?? ''))
          problems.push(`${name}=${query.getAll(name)}`);
      }
      if (problems.length > 0) return { statusCode: 400, data: { message: 'Invalid parameters' } };
      const played = typeof answer === 'function' ? answer(query) : answer;
      if (played) return { statusCode: played.statusCode, data: played.body };
      const fiatAmount = query.get('fiatAmount') as string;
      // 2.5 % taken out of the amount: what the wallet receives, with six decimals as USDC has.
      const cents = BigInt(fiatAmount.replace('.', ''));
      const micro = (cents * 10_000n * 975n) / 1000n;
      const crypto = `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, '0')}`;
      return {
        statusCode: 200,
        data: JSON.stringify({
          paymentMethodId: 'debit-credit-card',
          cryptoAmount: crypto,
          fiatAmount,
          processingFee: '0.92',
          networkFee: '0.01',
        }),
      };
    })
    .persist();
  return { requests, problems, agent, http };
}

async function quoteFrom(
  mode: ProviderMode,
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  answer?: Answer,
  apiKey = settings[mode].API_KEY,
) {
  const fake = fakeBanxaQuotes(mode, answer);
  const adapter = await banxa.create({ ...settings[mode], API_KEY: apiKey }, contractContext('banxa', mode, { http: fake.http }));
  const quote = adapter.quote!(order, { signal: new AbortController().signal });
  return { quote, fake };
}

describe('banxa quote', () => {
  it.each(['live', 'test'] as const)('asks Get a Quote on the %s host with the API key and reads the strings exactly', async (mode) => {
    const { quote, fake } = await quoteFrom(mode, { amount: '200.00', currency: 'EUR' });
    await expect(quote).resolves.toEqual({ usdc: 195_000_000n, total: '200.00', currency: 'EUR' });
    expect(fake.requests).toHaveLength(1);
    expect(Object.fromEntries(fake.requests[0]!.searchParams)).toEqual({
      fiat: 'EUR',
      crypto: 'USDC',
      blockchain: 'MATIC',
      paymentMethodId: 'debit-credit-card',
      fiatAmount: '200.00',
    });
    expect(fake.problems).toEqual([]);
  });

  it('truncates USDC to base units, never rounding up', async () => {
    const body = JSON.stringify({ paymentMethodId: 'debit-credit-card', cryptoAmount: '24.99999999', fiatAmount: '25.00' });
    const { quote } = await quoteFrom('live', { amount: '25.00', currency: 'USD' }, { statusCode: 200, body });
    await expect(quote).resolves.toEqual({ usdc: 24_999_999n, total: '25.00', currency: 'USD' });
  });

  it('reports a refusal with Banxa’s message', async () => {
    const { quote } = await quoteFrom(
      'live',
      { amount: '5.00', currency: 'USD' },
      { statusCode: 422, body: '{"message":"Amount below minimum"}' },
    );
    await expect(quote).rejects.toThrow(/Banxa refused the quote \(HTTP 422: Amount below minimum\)/);
  });

  it('is refused without the right API key', async () => {
    const { quote } = await quoteFrom('live', { amount: '25.00', currency: 'USD' }, undefined, 'another-api-key-0000');
    await expect(quote).rejects.toThrow(/HTTP 401/);
  });

  it.each([
    ['numbers instead of strings', '{"paymentMethodId":"debit-credit-card","cryptoAmount":24.5,"fiatAmount":25}'],
    ['another payment method', '{"paymentMethodId":"sepa-bank-transfer","cryptoAmount":"24.5","fiatAmount":"25.00"}'],
    ['no cryptoAmount', '{"paymentMethodId":"debit-credit-card","fiatAmount":"25.00"}'],
  ])('refuses a malformed answer: %s', async (_why, body) => {
    const { quote } = await quoteFrom('live', { amount: '25.00', currency: 'USD' }, { statusCode: 200, body });
    await expect(quote).rejects.toThrow(/Banxa's quote is malformed/);
  });
});
