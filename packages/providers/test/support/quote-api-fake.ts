import { randomBytes } from 'node:crypto';
import { headerOf, jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, DocumentedRoute, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * Providers' price APIs as their references document them: each route checks the documented
 * request (method, path, query, credentials), writes what it finds otherwise in `problems`, and
 * answers the documented body computed from the amount asked with a fee taken, so a band's quote
 * can be told from another's. The session fakes of the same providers serve these routes too (their
 * checkouts are quoted by Process Payment); the quote fakes below serve them alone, with `requests`
 * counting the calls: one per provider and band per cache period is what the quote service promises.
 */
export interface QuoteFake extends DocumentedFake {
  /** The provider's fee in basis points of the amount, taken out of what the wallet receives. */
  feeBps: number;
}

/** `amount` less `feeBps`, as a decimal string with `decimals` places (exact: integer arithmetic). */
function lessFee(amount: string, feeBps: number, decimals: number): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  const cents = BigInt(whole + fraction.padEnd(2, '0').slice(0, 2));
  const scale = 10n ** BigInt(decimals - 2);
  const units = (cents * scale * BigInt(10_000 - feeBps)) / 10_000n;
  const text = units.toString().padStart(decimals + 1, '0');
  return `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
}

const DECIMAL = /^\d{1,12}\.\d{2}$/;
/** A USDC amount as formatUsdc writes it: up to six decimals, trailing zeros trimmed. */
const USDC_DECIMAL = /^\d{1,12}(\.\d{0,5}[1-9])?$/;

/** A decimal string of up to `decimals` places in units of 10^-decimals. */
function unitsOf(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/** Units of 10^-decimals as a decimal string with exactly `decimals` places. */
export function decimalOf(units: bigint, decimals: number): string {
  const text = units.toString().padStart(decimals + 1, '0');
  return `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
}

function queryOf(request: FakeRequest): URLSearchParams {
  return new URL(request.path, 'http://fake').searchParams;
}

/** Whether the query has exactly these parameters (order free), recording every difference. */
function queryIs(fake: DocumentedFake, request: FakeRequest, expected: Record<string, string | RegExp>): boolean {
  const query = queryOf(request);
  const names = new Set([...query.keys(), ...Object.keys(expected)]);
  let ok = true;
  for (const name of names) {
    const want = expected[name];
    const got = query.getAll(name);
    const matches = got.length === 1 && want !== undefined && (typeof want === 'string' ? got[0] === want : want.test(got[0] as string));
    ok = fake.check(matches, `${request.path}: ${name} is ${JSON.stringify(got)}, documented ${String(want ?? 'absent')}`) && ok;
  }
  return ok;
}

/** What a price route needs of its fake: the fake itself (for check), the credentials it accepts, the fee it takes. */
export interface PriceRouteOptions {
  fake(): DocumentedFake;
  credentials: readonly string[];
  feeBps(): number;
}

const stripeRefusal = (status: number, message: string): FakeAnswer =>
  jsonAnswer(status, { error: { type: 'invalid_request_error', message } });

/**
 * Stripe, "Retrieve CryptoOnrampQuotes" (docs.stripe.com/api/crypto/onramp_quotes/retrieve): GET
 * /v1/crypto/onramp/quotes, basic auth with the secret key as user and no password, usd only;
 * answers the quotes object with decimal strings, fees on top of source_amount. Or, for a fixed
 * amount of crypto, `destination_amount` ("If destination_amount is set, source_amount must be
 * null", a single destination currency and network): that USDC delivered, its cost in cents rounded
 * up with the fee on top of it.
 */
export function stripeQuotesRoute<R extends FakeRequest>({ fake, credentials, feeBps }: PriceRouteOptions): DocumentedRoute<R> {
  return {
    method: 'GET',
    path: '/v1/crypto/onramp/quotes',
    answer(request) {
      const [user = '', password] = Buffer.from(headerOf(request, 'authorization').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':');
      if (!credentials.includes(user)) return stripeRefusal(401, 'Invalid API Key provided');
      if (password !== '') return stripeRefusal(401, 'the secret key is the user, with no password');
      const byDestination = queryOf(request).has('destination_amount');
      const documented = queryIs(fake(), request, {
        ...(byDestination ? { destination_amount: USDC_DECIMAL } : { source_amount: DECIMAL }),
        source_currency: 'usd',
        'destination_currencies[]': 'usdc',
        'destination_networks[]': 'polygon',
      });
      if (!documented) return stripeRefusal(400, 'Invalid request');
      const destination = queryOf(request).get('destination_amount');
      // For a fixed USDC amount, its cost: the USDC at 1 USD, in cents rounded up.
      const amount =
        destination === null
          ? (queryOf(request).get('source_amount') as string)
          : decimalOf((unitsOf(destination, 6) + 9_999n) / 10_000n, 2);
      const fee = lessFee(amount, 10_000 - feeBps(), 2);
      const total = (BigInt(amount.replace('.', '')) + BigInt(fee.replace('.', ''))).toString().padStart(3, '0');
      return jsonAnswer(200, {
        id: randomBytes(32).toString('hex'),
        object: 'crypto.onramp.quotes',
        destination_network_quotes: {
          polygon: [
            {
              id: randomBytes(32).toString('hex'),
              destination_amount: destination === null ? lessFee(amount, 0, 6) : decimalOf(unitsOf(destination, 6), 6),
              destination_currency: 'usdc',
              destination_network: 'polygon',
              fees: { network_fee_monetary: '0.00', transaction_fee_monetary: fee },
              source_total_amount: `${total.slice(0, -2)}.${total.slice(-2)}`,
            },
          ],
        },
        livemode: user.startsWith('sk_live_'),
        rate_fetched_at: Date.now() / 1000,
        source_amount: destination === null ? amount : null,
        source_currency: 'usd',
      });
    },
  };
}

const transakRefusal = (status: number, message: string): FakeAnswer => jsonAnswer(status, { error: { statusCode: status, message } });

/**
 * Transak, "Get Price" (docs.transak.com/api/public/get-price): GET /api/v1/pricing/public/quotes
 * with the partner API key as `partnerApiKey` and no other credential; answers `{response}` with
 * JSON numbers, the fee taken out of fiatAmount.
 */
export function transakPriceRoute<R extends FakeRequest>({ fake, credentials, feeBps }: PriceRouteOptions): DocumentedRoute<R> {
  return {
    method: 'GET',
    path: '/api/v1/pricing/public/quotes',
    answer(request) {
      const query = queryOf(request);
      const apiKey = query.get('partnerApiKey') ?? '';
      if (!credentials.includes(apiKey)) return transakRefusal(401, 'Invalid partnerApiKey');
      fake().check(!('access-token' in request.headers) && !('api-secret' in request.headers), 'price: sent a credential it does not take');
      const documented = queryIs(fake(), request, {
        partnerApiKey: apiKey,
        fiatCurrency: /^[A-Z]{3}$/,
        cryptoCurrency: 'USDC',
        isBuyOrSell: 'BUY',
        network: 'polygon',
        paymentMethod: 'credit_debit_card',
        fiatAmount: DECIMAL,
      });
      if (!documented) return transakRefusal(400, 'Invalid params');
      const fiatAmount = query.get('fiatAmount') as string;
      const crypto = lessFee(fiatAmount, feeBps(), 6);
      const fee = lessFee(fiatAmount, 10_000 - feeBps(), 2);
      // Numbers as Transak writes them: JSON numbers, written from the text so no float rounds them.
      const body =
        `{"response":{"quoteId":"${randomBytes(16).toString('hex')}","conversionPrice":1,"fiatCurrency":"${query.get('fiatCurrency')}",` +
        `"cryptoCurrency":"USDC","paymentMethod":"credit_debit_card","fiatAmount":${fiatAmount},"cryptoAmount":${crypto},` +
        `"isBuyOrSell":"BUY","network":"polygon","feeDecimal":${feeBps() / 10_000},"totalFee":${fee},` +
        `"feeBreakdown":[{"name":"Transak fee","value":${fee},"id":"transak_fee","ids":["transak_fee"]}],"nonce":${Date.now()}}}`;
      return { status: 200, body };
    },
  };
}

const rampRefusal = (status: number, message: string): FakeAnswer => jsonAnswer(status, { code: 'BAD_REQUEST', message });
/** Native USDC on Polygon, as Ramp's AssetInfo names it. */
const RAMP_USDC_ASSET = {
  symbol: 'USDC',
  chain: 'MATIC',
  name: 'USD Coin',
  decimals: 6,
  address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  type: 'MATIC_ERC20',
};

/**
 * Ramp Network's on-ramp quote (rampnetwork-quote.ts says where its shape is from): POST
 * /api/host-api/v3/onramp/quote/all?hostApiKey=<key> with a JSON body of cryptoAssetSymbol,
 * fiatCurrency and fiatValue (a number); answers `asset` and one object per payment method, the fee
 * taken out of fiatValue and cryptoAmount in the asset's base units (a bank transfer costs half the card's fee).
 */
export function rampQuoteRoute<R extends FakeRequest>({ fake, credentials, feeBps }: PriceRouteOptions): DocumentedRoute<R> {
  return {
    method: 'POST',
    path: '/api/host-api/v3/onramp/quote/all',
    answer(request) {
      if (!credentials.includes(queryOf(request).get('hostApiKey') ?? '')) return jsonAnswer(401, { code: 'INVALID_HOST_API_KEY' });
      queryIs(fake(), request, { hostApiKey: queryOf(request).get('hostApiKey') as string });
      if (!fake().check(sentAsJson(request), 'quote: the body is not sent as application/json')) return rampRefusal(400, 'JSON expected');
      const body = fake().jsonBody(request);
      const fiatValue = /"fiatValue":(\d{1,12}(?:\.\d{1,2})?)[,}]/.exec(request.body)?.[1];
      const documented = [
        fake().check(
          body !== undefined && Object.keys(body).sort().join() === 'cryptoAssetSymbol,fiatCurrency,fiatValue',
          `quote: body ${request.body}`,
        ),
        fake().check(body?.cryptoAssetSymbol === 'MATIC_USDC', `quote: cryptoAssetSymbol ${String(body?.cryptoAssetSymbol)}`),
        fake().check(/^[A-Z]{3}$/.test(String(body?.fiatCurrency)), `quote: fiatCurrency ${String(body?.fiatCurrency)}`),
        fake().check(fiatValue !== undefined, `quote: fiatValue is not a JSON number of at most two decimals: ${request.body}`),
      ].every(Boolean);
      if (!documented || fiatValue === undefined) return rampRefusal(400, 'Invalid request');
      const cents = decimalOf(unitsOf(fiatValue, 2), 2);
      const byMethod = (bps: number) => {
        const fee = lessFee(cents, 10_000 - bps, 2);
        return `{"fiatCurrency":"${String(body?.fiatCurrency)}","cryptoAmount":"${unitsOf(lessFee(cents, bps, 6), 6)}","fiatValue":${fiatValue},"appliedFee":${fee},"baseRampFee":${fee}}`;
      };
      return {
        status: 200,
        body: `{"asset":${JSON.stringify(RAMP_USDC_ASSET)},"CARD_PAYMENT":${byMethod(feeBps())},"MANUAL_BANK_TRANSFER":${byMethod(Math.floor(feeBps() / 2))}}`,
      };
    },
  };
}

/** A provider's price API alone, for the quote adapters' tests and the quote service's: the fee is what a test sets. */
export interface QuoteFake extends DocumentedFake {
  /** The provider's fee in basis points of the amount. */
  feeBps: number;
}

async function startQuoteFake(
  route: (options: PriceRouteOptions) => DocumentedRoute<FakeRequest>,
  credentials: readonly string[],
  refusal: (status: number, message: string) => FakeAnswer,
  feeBps: number,
): Promise<QuoteFake> {
  let fake: QuoteFake | undefined;
  const options: PriceRouteOptions = { fake: () => fake as QuoteFake, credentials, feeBps: () => (fake as QuoteFake).feeBps };
  fake = Object.assign(await startDocumentedFake({ routes: [route(options)], refusal }), { feeBps });
  return fake;
}

/** Stripe's quotes alone, accepting these secret keys; 3 % on top by default. */
export function startStripeQuoteFake(secretKeys: readonly string[]): Promise<QuoteFake> {
  return startQuoteFake(stripeQuotesRoute, secretKeys, stripeRefusal, 300);
}

/** Transak's price alone, accepting this partner API key; 2.5 % taken out by default. */
export function startTransakQuoteFake(apiKey: string): Promise<QuoteFake> {
  return startQuoteFake(transakPriceRoute, [apiKey], transakRefusal, 250);
}

/** Ramp Network's quote alone, accepting this host API key; 2.9 % taken out of the card's fiatValue by default. */
export function startRampQuoteFake(hostApiKey: string): Promise<QuoteFake> {
  return startQuoteFake(rampQuoteRoute, [hostApiKey], rampRefusal, 290);
}
