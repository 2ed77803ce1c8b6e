// A local session provider for the session-checkout bench, on loopback: Transak's two calls
// (partner access token, then the widget session) and Stripe's one (the onramp session), and the
// price each quotes for the order (Process Payment records the quote as the order's expectation), each
// answered after a fixed latency, in the shapes their docs give (the adapters' headers name the
// pages). It checks what the adapters must send (method, path, credentials, the current token)
// and counts every call, so the bench can say how many sessions a run opened. Not a test fake:
// the tests have their own, stricter ones in packages/providers/test/support/.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export const FAKE_TRANSAK = { apiKey: 'bench-transak-api-key-0001', apiSecret: 'bench-transak-api-secret-0001' };
export const FAKE_STRIPE = { secretKey: `sk_test_${'b'.repeat(24)}`, webhookSecret: `whsec_${'c'.repeat(32)}` };

export interface SessionProviderFake {
  url: string;
  /** Calls answered so far, by kind. */
  readonly calls: { transakToken: number; transakSession: number; stripeSession: number; quotes: number };
  /** Requests that were not as the adapters must send them, in words; empty when all were right. */
  readonly problems: string[];
  close(): Promise<void>;
}

export async function startSessionProviderFake(latencyMs: number): Promise<SessionProviderFake> {
  const calls = { transakToken: 0, transakSession: 0, stripeSession: 0, quotes: 0 };
  const problems: string[] = [];
  let token: string | undefined;
  const stripeAuthorization = `Basic ${Buffer.from(`${FAKE_STRIPE.secretKey}:`).toString('base64')}`;

  function answer(method: string, path: string, headers: Record<string, string | string[] | undefined>, body: string) {
    if (method === 'POST' && path === '/partners/api/v2/refresh-token') {
      calls.transakToken += 1;
      if (headers['api-secret'] !== FAKE_TRANSAK.apiSecret || body !== JSON.stringify({ apiKey: FAKE_TRANSAK.apiKey })) {
        problems.push('refresh-token: api-secret or body wrong');
        return { status: 401, body: { error: { message: 'Invalid API key or secret' } } };
      }
      // A refresh invalidates the previous token, as Transak's does.
      token = randomBytes(32).toString('base64url');
      return { status: 200, body: { data: { accessToken: token, expiresAt: Math.floor(Date.now() / 1000) + 7 * 24 * 3600 } } };
    }
    if (method === 'POST' && path === '/api/v2/auth/session') {
      calls.transakSession += 1;
      if (token === undefined || headers['access-token'] !== token) {
        problems.push('session: access-token is not the current token');
        return { status: 401, body: { error: { message: 'Invalid access token' } } };
      }
      const sessionId = randomBytes(12).toString('hex');
      return {
        status: 200,
        body: { data: { widgetUrl: `https://global-stg.transak.com?apiKey=${FAKE_TRANSAK.apiKey}&sessionId=${sessionId}` } },
      };
    }
    if (method === 'POST' && path === '/v1/crypto/onramp_sessions') {
      calls.stripeSession += 1;
      if (headers.authorization !== stripeAuthorization || typeof headers['idempotency-key'] !== 'string') {
        problems.push('onramp_sessions: basic auth or Idempotency-Key missing');
        return { status: 401, body: { error: { message: 'Invalid API Key provided' } } };
      }
      const id = `cos_${randomBytes(12).toString('hex')}`;
      return {
        status: 200,
        body: { id, object: 'crypto.onramp_session', status: 'initialized', redirect_url: `https://crypto.link.com?session_hash=${id}` },
      };
    }
    const [route = '', search = ''] = path.split('?');
    const query = new URLSearchParams(search);
    // The prices: 2 % off the order (docs.transak.com/api/public/get-price, docs.stripe.com/api/crypto/onramp_quotes).
    if (method === 'GET' && route === '/api/v1/pricing/public/quotes') {
      calls.quotes += 1;
      const amount = query.get('fiatAmount') ?? '';
      if (query.get('partnerApiKey') !== FAKE_TRANSAK.apiKey || !/^\d+\.\d{2}$/.test(amount)) {
        problems.push('price: partnerApiKey or fiatAmount wrong');
        return { status: 401, body: { error: { message: 'Invalid partnerApiKey' } } };
      }
      const crypto = lessTwoPercent(amount);
      return {
        status: 200,
        // JSON numbers, as Transak writes them, from the text: no float rounds them.
        raw: `{"response":{"fiatCurrency":"${query.get('fiatCurrency')}","cryptoCurrency":"USDC","paymentMethod":"credit_debit_card","fiatAmount":${amount},"cryptoAmount":${crypto},"isBuyOrSell":"BUY","network":"polygon"}}`,
      };
    }
    if (method === 'GET' && route === '/v1/crypto/onramp/quotes') {
      calls.quotes += 1;
      const amount = query.get('source_amount') ?? '';
      if (headers.authorization !== stripeAuthorization || !/^\d+\.\d{2}$/.test(amount)) {
        problems.push('onramp quotes: basic auth or source_amount wrong');
        return { status: 401, body: { error: { message: 'Invalid API Key provided' } } };
      }
      const fee = (Number(amount) * 0.02).toFixed(2);
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
                source_total_amount: (Number(amount) + Number(fee)).toFixed(2),
              },
            ],
          },
        },
      };
    }
    problems.push(`unexpected ${method} ${path}`);
    return { status: 404, body: { error: { message: 'Not found' } } };
  }

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answered: { status: number; body?: unknown; raw?: string } = answer(
        request.method ?? '',
        request.url ?? '',
        request.headers,
        Buffer.concat(chunks).toString('utf8'),
      );
      const text = answered.raw ?? JSON.stringify(answered.body);
      setTimeout(() => response.writeHead(answered.status, { 'content-type': 'application/json' }).end(text), latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    calls,
    problems,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The USDC for `amount` less 2 %, as a decimal with six places (fiat with two places: exact in cents). */
function lessTwoPercent(amount: string): string {
  const cents = BigInt(amount.replace('.', ''));
  const micro = (cents * 10_000n * 98n) / 100n;
  const digits = micro.toString().padStart(7, '0');
  return `${digits.slice(0, -6)}.${digits.slice(-6)}`;
}
