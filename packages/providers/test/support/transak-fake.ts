import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A local Transak (staging) on node:http, answering as docs.transak.com documents: the
 * refresh-token call on the API host and the session call on the gateway host, in one server.
 * It checks each request as documented (method, path, headers, body) and records what it found
 * wrong; a refresh invalidates the previous token, as Transak's does. Tests override answers to
 * play errors, timeouts and malformed bodies.
 */

export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type FakeAnswer = { status: number; body: string } | 'hang';

export interface TransakFake {
  url: string;
  refreshes: FakeRequest[];
  sessions: FakeRequest[];
  /** What the fake found not as documented, in words; empty when every request was right. */
  problems: string[];
  /** The paths of the calls whose caller hung up before the answer was sent (a deadline that passed). */
  abandoned: string[];
  /** The token a session call must carry now (the latest minted). */
  readonly currentToken: string | undefined;
  /** The widgetParams a session was opened with, by the sessionId of its widget URL. */
  widgetParamsOf(sessionId: string): Record<string, unknown> | undefined;
  /** Replaces the next answers of a call; cleared by reset(). */
  answerRefresh?: (request: FakeRequest) => FakeAnswer | undefined;
  answerSession?: (request: FakeRequest) => FakeAnswer | undefined;
  /** Milliseconds the documented answers wait (a provider answering in 300 ms). */
  latencyMs: number;
  reset(): void;
  close(): Promise<void>;
}

export const FAKE_API_KEY = 'a3b1c2d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
export const FAKE_API_SECRET = 'Kx9fQ2mZ7pL4wR8tY1vN6bH3jD5sG0cA';
const SEVEN_DAYS_S = 7 * 24 * 3600;

export async function startTransakFake(expected = { apiKey: FAKE_API_KEY, apiSecret: FAKE_API_SECRET }): Promise<TransakFake> {
  let currentToken: string | undefined;
  const widgets = new Map<string, Record<string, unknown>>();
  const hanging = new Set<() => void>();
  const fake: TransakFake = {
    url: '',
    refreshes: [],
    sessions: [],
    problems: [],
    abandoned: [],
    latencyMs: 0,
    get currentToken() {
      return currentToken;
    },
    widgetParamsOf: (sessionId) => widgets.get(sessionId),
    reset() {
      fake.refreshes = [];
      fake.sessions = [];
      fake.problems = [];
      fake.abandoned = [];
      fake.latencyMs = 0;
      delete fake.answerRefresh;
      delete fake.answerSession;
    },
    close: () =>
      new Promise((resolve) => {
        for (const release of hanging) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const json = (status: number, body: unknown): FakeAnswer => ({ status, body: JSON.stringify(body) });
  const check = (condition: boolean, problem: string) => {
    if (!condition) fake.problems.push(problem);
    return condition;
  };
  const jsonBody = (request: FakeRequest): Record<string, unknown> | undefined => {
    try {
      return JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      fake.problems.push(`${request.path}: body is not JSON`);
      return undefined;
    }
  };

  function refresh(request: FakeRequest): FakeAnswer {
    const body = jsonBody(request);
    const ok = [
      check(request.method === 'POST', `refresh-token: method ${request.method}`),
      check(request.headers['api-secret'] === expected.apiSecret, 'refresh-token: api-secret header missing or wrong'),
      check(String(request.headers['content-type']).startsWith('application/json'), 'refresh-token: content-type not JSON'),
      check(JSON.stringify(body) === JSON.stringify({ apiKey: expected.apiKey }), 'refresh-token: body is not {"apiKey"}'),
    ].every(Boolean);
    if (!ok) return json(401, { error: { statusCode: 401, message: 'Invalid API key or secret' } });
    // A JWT-looking token, as Transak's is; a new one invalidates the one before.
    currentToken = `eyJhbGciOiJIUzI1NiJ9.${randomBytes(24).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    return json(200, { data: { accessToken: currentToken, expiresAt: Math.floor(Date.now() / 1000) + SEVEN_DAYS_S } });
  }

  function session(request: FakeRequest): FakeAnswer {
    check(request.method === 'POST', `session: method ${request.method}`);
    check(String(request.headers['content-type']).startsWith('application/json'), 'session: content-type not JSON');
    if (currentToken === undefined || request.headers['access-token'] !== currentToken) {
      return json(401, { error: { statusCode: 401, message: 'Invalid access token' } });
    }
    const params = jsonBody(request)?.widgetParams as Record<string, unknown> | undefined;
    if (!check(params !== undefined, 'session: no widgetParams')) return json(400, { error: { message: 'widgetParams required' } });
    const ok = [
      check(params!.apiKey === expected.apiKey, 'session: widgetParams.apiKey wrong'),
      check(typeof params!.referrerDomain === 'string' && params!.referrerDomain !== '', 'session: widgetParams.referrerDomain missing'),
    ].every(Boolean);
    if (!ok) return json(400, { error: { message: 'apiKey and referrerDomain are mandatory' } });
    const sessionId = randomBytes(12).toString('hex');
    widgets.set(sessionId, params!);
    return json(200, { data: { widgetUrl: `https://global-stg.transak.com?apiKey=${expected.apiKey}&sessionId=${sessionId}` } });
  }

  function route(request: FakeRequest): FakeAnswer {
    if (request.path === '/partners/api/v2/refresh-token') {
      fake.refreshes.push(request);
      return fake.answerRefresh?.(request) ?? refresh(request);
    }
    if (request.path === '/api/v2/auth/session') {
      fake.sessions.push(request);
      return fake.answerSession?.(request) ?? session(request);
    }
    fake.problems.push(`unexpected ${request.method} ${request.path}`);
    return json(404, { error: { message: 'Not found' } });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: FakeRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const answer = route(request);
      res.on('close', () => {
        if (!res.writableEnded) fake.abandoned.push(request.path);
      });
      if (answer === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      const send = () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      if (fake.latencyMs > 0) setTimeout(send, fake.latencyMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return fake;
}
