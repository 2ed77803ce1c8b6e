// A local session provider for the benches, on loopback: Transak's two calls (partner access
// token, then the widget session) and Stripe's one (the onramp session), and the price APIs of the
// providers that quote (price-api-fake.ts: Process Payment records the quote as the order's
// expectation, the checkout page shows it), each answered after a fixed latency, in the shapes
// their docs give (the adapters' headers name the pages). It checks what the adapters must send
// (method, path, credentials, the current token) and counts every call, so a bench can say how
// many sessions and quotes a run asked for. Not a test fake: the tests have their own, stricter
// ones in packages/providers/test/support/.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { FAKE_TRANSAK, type FakeAnswer, priceApis, STRIPE_AUTHORIZATION } from './price-api-fake';

export interface SessionProviderFake {
  url: string;
  /** Calls answered so far, by kind. */
  readonly calls: { transakToken: number; transakSession: number; stripeSession: number };
  /** Price calls answered, by provider and amount (price-api-fake.ts). */
  readonly priceCalls: Map<string, number>;
  /** Requests that were not as the adapters must send them, in words; empty when all were right. */
  readonly problems: string[];
  close(): Promise<void>;
}

export async function startSessionProviderFake(latencyMs: number): Promise<SessionProviderFake> {
  const calls = { transakToken: 0, transakSession: 0, stripeSession: 0 };
  const problems: string[] = [];
  let token: string | undefined;
  const prices = priceApis(problems);

  function answer(method: string, path: string, headers: Record<string, string | string[] | undefined>, body: string): FakeAnswer {
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
      if (headers.authorization !== STRIPE_AUTHORIZATION || typeof headers['idempotency-key'] !== 'string') {
        problems.push('onramp_sessions: basic auth or Idempotency-Key missing');
        return { status: 401, body: { error: { message: 'Invalid API Key provided' } } };
      }
      const id = `cos_${randomBytes(12).toString('hex')}`;
      return {
        status: 200,
        body: { id, object: 'crypto.onramp_session', status: 'initialized', redirect_url: `https://crypto.link.com?session_hash=${id}` },
      };
    }
    const price = prices.answer(method, path, headers, body);
    if (price) return price;
    problems.push(`unexpected ${method} ${path}`);
    return { status: 404, body: { error: { message: 'Not found' } } };
  }

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answered = answer(request.method ?? '', request.url ?? '', request.headers, Buffer.concat(chunks).toString('utf8'));
      const text = answered.raw ?? JSON.stringify(answered.body);
      setTimeout(() => response.writeHead(answered.status, { 'content-type': 'application/json' }).end(text), latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    calls,
    priceCalls: prices.calls,
    problems,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
