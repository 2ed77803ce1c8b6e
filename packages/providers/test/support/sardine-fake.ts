import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

/**
 * A local Sardine API: POST /v1/auth/client-tokens (docs.payments.sardine.ai, Get Client Token:
 * basic auth clientId:clientSecret, a JSON body whose referenceId is new on each call) answering
 * `{clientToken, expiresAt}` (30 minutes on), and GET /v1/orders?referenceId=… (Get Order(s))
 * answering the orders with that referenceId as a list. Orders appear as Sardine would make them
 * once a customer pays (`addOrder`). Sardine's error body is not documented: `{"message"}` here.
 * `script` answers a request otherwise (an error, a malformed answer) or not at all ('hang').
 * `widgetProblems` reads a checkout URL as the widget would: a token it issued, and the chain and
 * asset locked (`fixed_network`, `fixed_asset_type`: without them the customer may switch either).
 */
export interface SardineFakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface SardineFake {
  url: string;
  clientId: string;
  clientSecret: string;
  requests: SardineFakeRequest[];
  script: ((request: SardineFakeRequest) => { status: number; body: string } | 'hang' | undefined) | undefined;
  addOrder(order: Record<string, unknown>): void;
  /** What is wrong with a widget URL, in words; empty when the widget would open it locked to our order. */
  widgetProblems(url: string): string[];
  reset(): void;
  close(): Promise<void>;
}

export const SARDINE_FAKE_CLIENT = { id: '16744ddc-a8a3-48b2-a8e9-606ae8995539', secret: 'f20ba4db-73c2-4942-8402-da77899e7662' };

export async function startSardineFake(now: () => number = Date.now): Promise<SardineFake> {
  const orders: Record<string, unknown>[] = [];
  const references = new Set<string>();
  const tokens = new Set<string>();
  const fake: SardineFake = {
    url: '',
    clientId: SARDINE_FAKE_CLIENT.id,
    clientSecret: SARDINE_FAKE_CLIENT.secret,
    requests: [],
    script: undefined,
    addOrder: (order) => orders.push(order),
    widgetProblems(text) {
      const url = new URL(text);
      const param = (name: string) => url.searchParams.get(name);
      const problems: string[] = [];
      if (!tokens.has(param('client_token') ?? '')) problems.push('client_token is not a token this Sardine issued');
      if (!/^0x[0-9a-fA-F]{40}$/.test(param('address') ?? '')) problems.push('no address');
      for (const [value, lock] of [
        ['network', 'fixed_network'],
        ['asset_type', 'fixed_asset_type'],
      ] as const) {
        if (param(lock) === null) problems.push(`${lock} missing: the customer may change ${value}`);
        else if (param(lock) !== param(value)) problems.push(`${lock} is not ${value}`);
      }
      return problems;
    },
    reset() {
      fake.requests.length = 0;
      fake.script = undefined;
      orders.length = 0;
      references.clear();
      tokens.clear();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const error = (status: number, message: string) => ({ status, body: JSON.stringify({ message }) });
  const basic = `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`;

  function documented(request: SardineFakeRequest): { status: number; body: string } {
    if (request.headers.authorization !== basic) return error(401, 'Unauthorized');
    const url = new URL(request.path, 'http://fake');
    if (request.method === 'GET' && url.pathname === '/v1/orders') {
      const reference = url.searchParams.get('referenceId');
      return { status: 200, body: JSON.stringify(orders.filter((order) => reference === null || order.referenceId === reference)) };
    }
    if (request.method !== 'POST' || url.pathname !== '/v1/auth/client-tokens') return error(404, 'Not Found');
    if (request.headers['content-type'] !== 'application/json') return error(400, 'a JSON body is expected');
    let body: unknown;
    try {
      body = JSON.parse(request.text);
    } catch {
      return error(400, 'body is not JSON');
    }
    const reference = (body as { referenceId?: unknown } | null)?.referenceId;
    if (typeof reference !== 'string' || reference === '') return error(400, 'referenceId is required');
    // "Unique id representing a new session, must be regenerated for each call".
    if (references.has(reference)) return error(400, 'referenceId already used');
    references.add(reference);
    const clientToken = randomUUID();
    tokens.add(clientToken);
    return { status: 200, body: JSON.stringify({ clientToken, expiresAt: new Date(now() + 30 * 60_000).toISOString() }) };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, text: Buffer.concat(chunks).toString() };
      fake.requests.push(request);
      const scripted = fake.script?.(request);
      if (scripted === 'hang') return;
      const answer = scripted ?? documented(request);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return fake;
}
