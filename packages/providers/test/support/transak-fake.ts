import { randomBytes } from 'node:crypto';
import { jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';
import { transakPriceRoute } from './quote-api-fake';

/**
 * A local Transak (staging), answering as docs.transak.com documents: the refresh-token call and
 * Get Price (quote-api-fake.ts, which Process Payment asks) on the API host and the session call
 * on the gateway host, in one server. A refresh invalidates the previous token, as Transak's does.
 * Each call is also recorded in its own list, and `answerRefresh`/`answerSession` play that call
 * otherwise (as `script` does any).
 */
export interface TransakFake extends DocumentedFake {
  refreshes: FakeRequest[];
  sessions: FakeRequest[];
  /** The token a session call must carry now (the latest minted). */
  readonly currentToken: string | undefined;
  /** The widgetParams a session was opened with, by the sessionId of its widget URL. */
  widgetParamsOf(sessionId: string): Record<string, unknown> | undefined;
  answerRefresh?: (request: FakeRequest) => FakeAnswer | undefined;
  answerSession?: (request: FakeRequest) => FakeAnswer | undefined;
}

export const FAKE_API_KEY = 'a3b1c2d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
export const FAKE_API_SECRET = 'Kx9fQ2mZ7pL4wR8tY1vN6bH3jD5sG0cA';
const SEVEN_DAYS_S = 7 * 24 * 3600;

export async function startTransakFake(expected = { apiKey: FAKE_API_KEY, apiSecret: FAKE_API_SECRET }): Promise<TransakFake> {
  let currentToken: string | undefined;
  const widgets = new Map<string, Record<string, unknown>>();

  function refresh(request: FakeRequest): FakeAnswer {
    const { check } = fake;
    const body = fake.jsonBody(request);
    const ok = [
      check(request.headers['api-secret'] === expected.apiSecret, 'refresh-token: api-secret header missing or wrong'),
      check(sentAsJson(request), 'refresh-token: content-type not JSON'),
      check(JSON.stringify(body) === JSON.stringify({ apiKey: expected.apiKey }), 'refresh-token: body is not {"apiKey"}'),
    ].every(Boolean);
    if (!ok) return jsonAnswer(401, { error: { statusCode: 401, message: 'Invalid API key or secret' } });
    // A JWT-looking token, as Transak's is; a new one invalidates the one before.
    currentToken = `eyJhbGciOiJIUzI1NiJ9.${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    return jsonAnswer(200, { data: { accessToken: currentToken, expiresAt: Math.floor(Date.now() / 1000) + SEVEN_DAYS_S } });
  }

  function session(request: FakeRequest): FakeAnswer {
    const { check } = fake;
    check(sentAsJson(request), 'session: content-type not JSON');
    if (currentToken === undefined || request.headers['access-token'] !== currentToken) {
      return jsonAnswer(401, { error: { statusCode: 401, message: 'Invalid access token' } });
    }
    const params = fake.jsonBody(request)?.widgetParams as Record<string, unknown> | undefined;
    if (!check(params !== undefined, 'session: no widgetParams')) return jsonAnswer(400, { error: { message: 'widgetParams required' } });
    const ok = [
      check(params!.apiKey === expected.apiKey, 'session: widgetParams.apiKey wrong'),
      check(typeof params!.referrerDomain === 'string' && params!.referrerDomain !== '', 'session: widgetParams.referrerDomain missing'),
      // cryptoAmount is skipped when fiatAmount is given: an order sends the one amount it means, as a number.
      check(
        'fiatAmount' in params! !== 'cryptoAmount' in params! && typeof (params!.fiatAmount ?? params!.cryptoAmount) === 'number',
        'session: widgetParams carry both or neither of fiatAmount and cryptoAmount, or a non-number',
      ),
    ].every(Boolean);
    if (!ok) return jsonAnswer(400, { error: { message: 'apiKey and referrerDomain are mandatory' } });
    const sessionId = randomBytes(12).toString('hex');
    widgets.set(sessionId, params!);
    return jsonAnswer(200, { data: { widgetUrl: `https://global-stg.transak.com?apiKey=${expected.apiKey}&sessionId=${sessionId}` } });
  }

  const documented = await startDocumentedFake({
    routes: [
      {
        method: 'POST',
        path: '/partners/api/v2/refresh-token',
        answer: (request) => {
          fake.refreshes.push(request);
          return fake.answerRefresh?.(request) ?? refresh(request);
        },
      },
      transakPriceRoute({ fake: () => fake, credentials: [expected.apiKey], feeBps: () => 250 }),
      {
        method: 'POST',
        path: '/api/v2/auth/session',
        answer: (request) => {
          fake.sessions.push(request);
          return fake.answerSession?.(request) ?? session(request);
        },
      },
    ],
    refusal: (status, message) => jsonAnswer(status, { error: { statusCode: status, message } }),
    reset: () => {
      fake.refreshes = [];
      fake.sessions = [];
      delete fake.answerRefresh;
      delete fake.answerSession;
    },
  });
  const fake: TransakFake = Object.defineProperties(
    Object.assign(documented, {
      refreshes: [] as FakeRequest[],
      sessions: [] as FakeRequest[],
      widgetParamsOf: (sessionId: string) => widgets.get(sessionId),
    }),
    { currentToken: { get: () => currentToken, enumerable: true } },
  ) as TransakFake;
  return fake;
}
