import { createServer, type IncomingHttpHeaders } from 'node:http';

/**
 * A local Guardarian: POST /v1/transaction and GET /v1/transaction/{id} as its reference documents
 * them (x-api-key; one create a minute per source IP, the customer's IP taken from X-Forwarded-For;
 * errors as `{statusCode, code, message}`). Transactions are kept, so a look-up answers what was
 * created; `setStatus` moves one on, as Guardarian would. `script` answers a request otherwise
 * (an error, a malformed answer) or not at all ('hang').
 */
export interface GuardarianFakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface GuardarianFake {
  url: string;
  apiKey: string;
  requests: GuardarianFakeRequest[];
  script: ((request: GuardarianFakeRequest) => { status: number; body: string } | 'hang' | undefined) | undefined;
  setStatus(id: string, status: string, outputHash?: string): void;
  reset(): void;
  close(): Promise<void>;
}

const RATE_WINDOW_MS = 60_000;

/** `checkoutOrigin`: where the fake's redirect_url points (Guardarian's live checkout; its staging one for a test-mode app). */
export async function startGuardarianFake(
  apiKey = 'b9ee06c9-269d-4260-8cc5-1301da21197b',
  checkoutOrigin = 'https://payments.guardarian.com',
): Promise<GuardarianFake> {
  const transactions = new Map<string, Record<string, unknown>>();
  const lastCreateByIp = new Map<string, number>();
  const FIRST_ID = 5517577077;
  let nextId = FIRST_ID;
  const fake: GuardarianFake = {
    url: '',
    apiKey,
    requests: [],
    script: undefined,
    setStatus(id, status, outputHash) {
      const transaction = transactions.get(id);
      if (!transaction) throw new Error(`the fake has no transaction ${id}`);
      transaction.status = status;
      if (outputHash) transaction.output_hash = outputHash;
    },
    reset() {
      fake.requests.length = 0;
      fake.script = undefined;
      transactions.clear();
      nextId = FIRST_ID;
      lastCreateByIp.clear();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const error = (status: number, code: string, message: string | string[]) => ({
    status,
    body: JSON.stringify({ statusCode: status, code, message }),
  });

  function documented(request: GuardarianFakeRequest, socketIp: string): { status: number; body: string } {
    if (request.headers['x-api-key'] !== apiKey) return error(403, 'INVALID_TOKEN', 'Invalid token');
    const lookUp = /^\/v1\/transaction\/([^/?]+)$/.exec(request.path);
    if (request.method === 'GET' && lookUp) {
      const transaction = transactions.get(decodeURIComponent(lookUp[1]!));
      return transaction ? { status: 200, body: JSON.stringify(transaction) } : error(404, 'NOT_FOUND', 'Transaction not found');
    }
    if (request.method !== 'POST' || request.path !== '/v1/transaction')
      return error(404, 'NOT_FOUND', `Cannot ${request.method} ${request.path}`);
    if (request.headers['content-type'] !== 'application/json') return error(400, 'BAD_REQUEST', 'a JSON body is expected');
    const forwarded = request.headers['x-forwarded-for'];
    const ip = typeof forwarded === 'string' ? forwarded.split(',')[0]!.trim() : socketIp;
    const last = lastCreateByIp.get(ip);
    if (last !== undefined && Date.now() - last < RATE_WINDOW_MS) return error(429, 'TOO_MANY_REQUESTS', 'Too Many Requests');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.text) as Record<string, unknown>;
    } catch {
      return error(400, 'BAD_REQUEST', 'body is not JSON');
    }
    const problems = [
      typeof body.from_amount === 'number' && body.from_amount > 0 ? '' : 'from_amount must be a positive number',
      typeof body.from_currency === 'string' ? '' : 'from_currency must be a string',
      typeof body.to_currency === 'string' ? '' : 'to_currency must be a string',
    ].filter(Boolean);
    if (problems.length > 0) return error(400, 'BAD_REQUEST', problems);
    lastCreateByIp.set(ip, Date.now());
    const id = String(nextId++);
    const transaction = {
      id: Number(id),
      status: 'new',
      email: (body.customer as { contact_info?: { email?: string } } | undefined)?.contact_info?.email ?? null,
      errors: [],
      status_details: null,
      from_currency: body.from_currency,
      from_network: body.from_network,
      from_amount: body.from_amount,
      expected_from_amount: body.from_amount,
      to_currency: body.to_currency,
      to_network: body.to_network,
      to_amount: null,
      output_hash: null,
      payout_info: body.payout_info ?? null,
      external_partner_link_id: body.external_partner_link_id ?? null,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      redirect_url: `${checkoutOrigin}/checkout?tid=${id}`,
    };
    transactions.set(id, transaction);
    return { status: 201, body: JSON.stringify(transaction) };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, text: Buffer.concat(chunks).toString() };
      fake.requests.push(request);
      const scripted = fake.script?.(request);
      if (scripted === 'hang') return;
      const answer = scripted ?? documented(request, req.socket.remoteAddress ?? '');
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return fake;
}
