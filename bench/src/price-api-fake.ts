import { generateKeyPairSync } from 'node:crypto';

// The price APIs of the six providers that quote (Stripe, Transak, MoonPay, Banxa, Mercuryo, and
// Coinbase for the customer's country), for the benches' local fake provider: each route checks the credential and the parameters its adapter
// must send (the adapters' `*-quote.ts` headers name the reference pages), answers the documented
// body with 2 % taken out of the amount, and counts its calls by provider and amount. Not a test
// fake: the tests have stricter ones (packages/providers/test/support/quote-api-fake.ts, the
// adapters' `*-quote.test.ts`).

export const FAKE_TRANSAK = { apiKey: 'bench-transak-api-key-0001', apiSecret: 'bench-transak-api-secret-0001' };
export const FAKE_STRIPE = { secretKey: `sk_test_${'b'.repeat(24)}`, webhookSecret: `whsec_${'c'.repeat(32)}` };
export const FAKE_MOONPAY = {
  apiKey: `pk_test_${'d'.repeat(24)}`,
  secretKey: `sk_test_${'e'.repeat(24)}`,
  webhookKey: `wk_test_${'f'.repeat(32)}`,
};
export const FAKE_BANXA = {
  partnerRef: 'bench-shop',
  apiKey: 'bench-banxa-api-key-0001',
  hmacKey: 'bench-banxa-hmac-key-0001',
  hmacSecret: 'bench-banxa-hmac-secret-0001',
};
export const FAKE_MERCURYO = {
  widgetId: '0b1e8a52-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  secretKey: 'bench-mercuryo-secret-key-0001',
  signKey: 'bench-mercuryo-sign-key-0001',
};

/** A CDP Ed25519 key as the Portal gives it (base64 of seed and public key), made for the run. */
export const FAKE_COINBASE = (() => {
  const key = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const secret = Buffer.concat([Buffer.from(key.d!, 'base64url'), Buffer.from(key.x!, 'base64url')]).toString('base64');
  return { keyId: '5b0c7e1a-2d3f-4a5b-8c6d-7e8f9a0b1c2d', keySecret: secret };
})();

export const STRIPE_AUTHORIZATION = `Basic ${Buffer.from(`${FAKE_STRIPE.secretKey}:`).toString('base64')}`;

/** One answer of the fake: a JSON body, or its raw text where numbers must stay as written. */
export interface FakeAnswer {
  status: number;
  body?: unknown;
  raw?: string;
}

export type QuotingProvider = 'stripe' | 'transak' | 'moonpay' | 'banxa' | 'mercuryo' | 'coinbase';

export interface PriceApis {
  /** The answer to a price request, or undefined when the request is for no price API. */
  answer(method: string, path: string, headers: Record<string, string | string[] | undefined>, body: string): FakeAnswer | undefined;
  /** Calls answered, by provider and the fiat amount asked: `<provider> <amount>` → count. */
  readonly calls: Map<string, number>;
}

const DECIMAL = /^\d{1,12}\.\d{2}$/;

/** The price routes, writing what is not as documented into `problems`. */
export function priceApis(problems: string[]): PriceApis {
  const calls = new Map<string, number>();
  const count = (provider: QuotingProvider, amount: string) => {
    const key = `${provider} ${amount}`;
    calls.set(key, (calls.get(key) ?? 0) + 1);
  };
  const refuse = (provider: QuotingProvider, problem: string): FakeAnswer => {
    problems.push(`${provider} price: ${problem}`);
    return { status: 400, body: { message: problem } };
  };

  function answer(
    method: string,
    path: string,
    headers: Record<string, string | string[] | undefined>,
    body: string,
  ): FakeAnswer | undefined {
    // docs.cdp.coinbase.com … create-buy-quote: a CDP JWT of our key, a JSON body with the customer's country.
    if (method === 'POST' && path === '/onramp/v1/buy/quote') {
      const asked = JSON.parse(body) as Record<string, unknown>;
      const amount = typeof asked.paymentAmount === 'string' ? asked.paymentAmount : '';
      const [jwtHeader = ''] = String(headers.authorization ?? '')
        .replace(/^Bearer /, '')
        .split('.');
      const kid = (JSON.parse(Buffer.from(jwtHeader, 'base64url').toString() || '{}') as { kid?: unknown }).kid;
      if (kid !== FAKE_COINBASE.keyId || !DECIMAL.test(amount) || typeof asked.country !== 'string') {
        return refuse('coinbase', 'JWT kid, paymentAmount or country');
      }
      count('coinbase', amount);
      const currency = String(asked.paymentCurrency);
      return {
        status: 200,
        body: {
          payment_total: { currency, value: amount },
          purchase_amount: { currency: 'USDC', value: lessTwoPercent(amount) },
          quote_id: 'bench',
        },
      };
    }
    if (method !== 'GET') return undefined;
    const [route = '', search = ''] = path.split('?');
    const query = new URLSearchParams(search);
    // docs.transak.com/api/public/get-price: the partner key in the query, JSON numbers in the answer.
    if (route === '/api/v1/pricing/public/quotes') {
      const amount = query.get('fiatAmount') ?? '';
      if (query.get('partnerApiKey') !== FAKE_TRANSAK.apiKey || !DECIMAL.test(amount))
        return refuse('transak', 'partnerApiKey or fiatAmount');
      count('transak', amount);
      return {
        status: 200,
        raw: `{"response":{"fiatCurrency":"${query.get('fiatCurrency')}","cryptoCurrency":"USDC","paymentMethod":"credit_debit_card","fiatAmount":${amount},"cryptoAmount":${lessTwoPercent(amount)},"isBuyOrSell":"BUY","network":"polygon"}}`,
      };
    }
    // docs.stripe.com/api/crypto/onramp_quotes: basic auth with the secret key, fees on top of source_amount.
    if (route === '/v1/crypto/onramp/quotes') {
      const amount = query.get('source_amount') ?? '';
      if (headers.authorization !== STRIPE_AUTHORIZATION || !DECIMAL.test(amount)) return refuse('stripe', 'basic auth or source_amount');
      count('stripe', amount);
      const fee = centsText((cents(amount) * 2n) / 100n);
      return {
        status: 200,
        body: {
          object: 'crypto.onramp.quotes',
          source_amount: amount,
          source_currency: 'usd',
          destination_network_quotes: {
            polygon: [
              {
                destination_amount: `${amount}0000`,
                destination_currency: 'usdc',
                destination_network: 'polygon',
                fees: { network_fee_monetary: '0.00', transaction_fee_monetary: fee },
                source_total_amount: centsText(cents(amount) + cents(fee)),
              },
            ],
          },
        },
      };
    }
    // dev.moonpay.com/api-reference/widget/getbuyquote: the publishable key as apiKey, JSON numbers in the answer.
    if (route === '/v3/currencies/usdc_polygon/buy_quote') {
      const amount = query.get('baseCurrencyAmount') ?? '';
      if (query.get('apiKey') !== FAKE_MOONPAY.apiKey || !DECIMAL.test(amount) || query.get('areFeesIncluded') !== 'true') {
        return refuse('moonpay', 'apiKey, baseCurrencyAmount or areFeesIncluded');
      }
      count('moonpay', amount);
      return {
        status: 200,
        raw: `{"baseCurrencyCode":"${query.get('baseCurrencyCode')}","baseCurrencyAmount":${amount},"quoteCurrencyCode":"usdc_polygon","quoteCurrencyAmount":${lessTwoPercent(amount)},"totalAmount":${amount},"paymentMethod":"credit_debit_card"}`,
      };
    }
    // docs.banxa.com … get-a-quote: the v2 API key as x-api-key, decimal strings in the answer.
    if (route === `/${FAKE_BANXA.partnerRef}/v2/quotes/buy`) {
      const amount = query.get('fiatAmount') ?? '';
      if (headers['x-api-key'] !== FAKE_BANXA.apiKey || !DECIMAL.test(amount)) return refuse('banxa', 'x-api-key or fiatAmount');
      count('banxa', amount);
      return {
        status: 200,
        body: {
          paymentMethodId: query.get('paymentMethodId'),
          cryptoAmount: lessTwoPercent(amount),
          fiatAmount: amount,
          networkFee: '0.00',
        },
      };
    }
    // Mercuryo's v1.6 buy rate: the widget id, no secret; decimal strings keyed by currency.
    if (route === '/v1.6/widget/buy/rate') {
      const amount = query.get('amount') ?? '';
      const fiat = query.get('from') ?? '';
      if (query.get('widget_id') !== FAKE_MERCURYO.widgetId || !DECIMAL.test(amount) || query.get('is_total') !== 'true') {
        return refuse('mercuryo', 'widget_id, amount or is_total');
      }
      count('mercuryo', amount);
      const usdc = lessTwoPercent(amount);
      return {
        status: 200,
        body: {
          status: 200,
          data: { currency: 'USDC', amount: usdc, fiat_currency: fiat, fiat_amount: amount, total: { USDC: usdc, [fiat]: amount } },
        },
      };
    }
    return undefined;
  }

  return { answer, calls };
}

const cents = (amount: string): bigint => BigInt(amount.replace('.', ''));

function centsText(value: bigint): string {
  const text = value.toString().padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

/** The USDC for `amount` less 2 %, as a decimal with six places (fiat with two places: exact in cents). */
function lessTwoPercent(amount: string): string {
  const micro = (cents(amount) * 10_000n * 98n) / 100n;
  const digits = micro.toString().padStart(7, '0');
  return `${digits.slice(0, -6)}.${digits.slice(-6)}`;
}
