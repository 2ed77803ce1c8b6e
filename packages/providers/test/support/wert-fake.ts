import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

/**
 * A local Wert partner API: POST /api/external/hpp/create-session (docs.wert.io/docs/fiat-onramp:
 * X-Api-Key, JSON, the simple_full_restrict fields required) answering `{sessionId, requestId}`, and
 * GET /api/external/orders (docs.wert.io/docs/data-api: X-API-KEY, search_by an order or click id)
 * answering `{success, data, total}`. Orders appear as Wert would make them once a customer pays
 * (`addOrder`). Wert's error body is not documented: `{"message"}` here. `script` answers a request
 * otherwise (an error, a malformed answer) or not at all ('hang').
 */
export interface WertFakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface WertFake {
  url: string;
  apiKey: string;
  requests: WertFakeRequest[];
  script: ((request: WertFakeRequest) => { status: number; body: string } | 'hang' | undefined) | undefined;
  addOrder(order: Record<string, unknown>): void;
  reset(): void;
  close(): Promise<void>;
}

const RESTRICTED_FIELDS = ['commodity', 'network', 'wallet_address', 'currency'] as const;

export async function startWertFake(apiKey = 'wert-sbox-4f7a1c9e2b6d4e8a9c3f0d5e7b1a'): Promise<WertFake> {
  const orders: Record<string, unknown>[] = [];
  const fake: WertFake = {
    url: '',
    apiKey,
    requests: [],
    script: undefined,
    addOrder: (order) => orders.push(order),
    reset() {
      fake.requests.length = 0;
      fake.script = undefined;
      orders.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const error = (status: number, message: string) => ({ status, body: JSON.stringify({ message }) });

  function documented(request: WertFakeRequest): { status: number; body: string } {
    if (request.headers['x-api-key'] !== apiKey) return error(401, 'Unauthorized');
    const url = new URL(request.path, 'http://fake');
    if (request.method === 'GET' && url.pathname === '/api/external/orders') {
      const search = url.searchParams.get('search_by');
      const found = orders.filter((order) => search === null || order.order_id === search || order.click_id === search);
      return { status: 200, body: JSON.stringify({ success: true, data: found.slice(0, 10), total: found.length }) };
    }
    if (request.method !== 'POST' || url.pathname !== '/api/external/hpp/create-session') return error(404, 'Not Found');
    if (request.headers['content-type'] !== 'application/json') return error(400, 'a JSON body is expected');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.text) as Record<string, unknown>;
    } catch {
      return error(400, 'body is not JSON');
    }
    if (body.flow_type !== 'simple' && body.flow_type !== 'simple_full_restrict') return error(400, 'flow_type is required');
    if (body.flow_type === 'simple_full_restrict') {
      const missing = RESTRICTED_FIELDS.filter((field) => typeof body[field] !== 'string');
      if (missing.length > 0) return error(400, `${missing.join(', ')} required on simple_full_restrict`);
      if (typeof body.currency_amount !== 'number' && typeof body.commodity_amount !== 'number') {
        return error(400, 'currency_amount or commodity_amount required on simple_full_restrict');
      }
    }
    return { status: 200, body: JSON.stringify({ sessionId: randomUUID(), requestId: randomUUID() }) };
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
