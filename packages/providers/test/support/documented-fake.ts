import { createServer, type IncomingHttpHeaders } from 'node:http';

/**
 * The local HTTP server every provider fake runs on: a `<provider>-fake.ts` describes only what its
 * provider documents (each route's method and path, the headers and body it expects, what it
 * answers). Every request is recorded in `requests`, then answered by `script` when a test plays an
 * error, a malformed answer or no answer at all ('hang'), else by its documented route; a request
 * no route documents is a problem and gets the provider's 404. What a route finds not as documented
 * it writes in `problems` (`check`), which a test expects empty. One way to start (on a free port
 * of 127.0.0.1: no test reaches the internet), one to reset between tests, one to stop.
 */
export interface FakeRequest {
  method: string;
  /** The path with its query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The connecting address (what a provider that limits per IP reads when no X-Forwarded-For says otherwise). */
  remoteAddress: string;
}

export type FakeAnswer = { status: number; body: string } | 'hang';

export interface DocumentedRoute<R extends FakeRequest> {
  method: 'GET' | 'POST' | 'DELETE';
  /** The path without its query, or a pattern whose groups the answer receives (decoded). */
  path: string | RegExp;
  answer(request: R, params: string[]): FakeAnswer;
}

export interface DocumentedApi<R extends FakeRequest> {
  routes: DocumentedRoute<R>[];
  /** The provider's documented error answer (a refused request, unknown credentials, a path it does not have). */
  refusal(status: number, message: string): FakeAnswer;
  /** Forgets the provider's own state (its orders, tokens, sessions) on reset(). */
  reset?(): void;
  /** What the fake records of a request beyond the raw one (Stripe's form). */
  read?(request: FakeRequest): R;
}

export interface DocumentedFake<R extends FakeRequest = FakeRequest> {
  url: string;
  requests: R[];
  /** What the fake found not as documented, in words; empty when every request was right. */
  problems: string[];
  /** The paths of the calls whose caller hung up before the answer was sent (a deadline that passed). */
  abandoned: string[];
  /** Answers a request otherwise than documented; undefined leaves it to its route. Cleared by reset(). */
  script?(request: R): FakeAnswer | undefined;
  /** Milliseconds the answers wait (a provider answering in 300 ms). */
  latencyMs: number;
  /** The provider's documented error answer with `status` and `message`. */
  refusal(status: number, message: string): FakeAnswer;
  /** Records `problem` unless `condition` holds; returns `condition`. */
  check(condition: boolean, problem: string): boolean;
  /** The body as a JSON object, or undefined (and a problem) when it is not one. */
  jsonBody(request: R): Record<string, unknown> | undefined;
  reset(): void;
  close(): Promise<void>;
}

export const jsonAnswer = (status: number, body: unknown): FakeAnswer => ({ status, body: JSON.stringify(body) });

/** The header's single value, '' when absent or repeated. */
export const headerOf = (request: FakeRequest, name: string): string => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : '';
};

/** What every documented JSON API here asks of a body: sent as `application/json`. */
export const sentAsJson = (request: FakeRequest): boolean => request.headers['content-type'] === 'application/json';

export const basicAuthorization = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export async function startDocumentedFake<R extends FakeRequest = FakeRequest>(api: DocumentedApi<R>): Promise<DocumentedFake<R>> {
  const hanging = new Set<() => void>();
  const fake: DocumentedFake<R> = {
    url: '',
    requests: [],
    problems: [],
    abandoned: [],
    script: undefined,
    latencyMs: 0,
    refusal: (status, message) => api.refusal(status, message),
    check(condition, problem) {
      if (!condition) fake.problems.push(problem);
      return condition;
    },
    jsonBody(request) {
      try {
        const body: unknown = JSON.parse(request.body);
        if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
      } catch {
        // Not JSON: the same problem as JSON that is not an object.
      }
      fake.problems.push(`${request.path}: body is not a JSON object`);
      return undefined;
    },
    reset() {
      fake.requests.length = 0;
      fake.problems.length = 0;
      fake.abandoned.length = 0;
      fake.script = undefined;
      fake.latencyMs = 0;
      api.reset?.();
    },
    close: () =>
      new Promise((resolve) => {
        for (const release of hanging) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  function documented(request: R): FakeAnswer {
    const pathname = new URL(request.path, 'http://fake').pathname;
    for (const route of api.routes) {
      if (route.method !== request.method) continue;
      if (typeof route.path === 'string' && route.path === pathname) return route.answer(request, []);
      const match = typeof route.path === 'string' ? null : route.path.exec(pathname);
      if (match)
        return route.answer(
          request,
          match.slice(1).map((group) => decodeURIComponent(group)),
        );
    }
    fake.problems.push(`unexpected ${request.method} ${request.path}`);
    return api.refusal(404, `no ${request.method} ${request.path}`);
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw: FakeRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remoteAddress: req.socket.remoteAddress ?? '',
      };
      const request = api.read ? api.read(raw) : (raw as R);
      fake.requests.push(request);
      const answer = fake.script?.(request) ?? documented(request);
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
