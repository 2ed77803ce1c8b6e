import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A local TransFi (sandbox) on node:http, answering as docs.transfi.com documents its ramp flow:
 * POST /v2/orders/deposit (create, answering orderId and the hosted paymentUrl) and
 * GET /v2/orders/{orderId} (Get Order). Every call must carry `Authorization: Basic
 * base64(username:password)` and the `MID` header; a create must be JSON with the fields of a buy
 * order. What it finds not as documented is recorded in `problems`. Tests override answers to
 * play errors, timeouts and malformed bodies, and set an order's status.
 */

export interface TransfiFakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type TransfiFakeAnswer = { status: number; body: string } | 'hang';

export interface TransfiFakeOrder {
  orderId: string;
  request: Record<string, unknown>;
  status: string;
}

export interface TransfiFake {
  url: string;
  requests: TransfiFakeRequest[];
  /** What the fake found not as documented, in words; empty when every request was right. */
  problems: string[];
  /** The orders created, by orderId. */
  orders: Map<string, TransfiFakeOrder>;
  /** The order a paymentUrl stands for (by its paytoken). */
  orderOfPaymentUrl(url: string): TransfiFakeOrder | undefined;
  /** Replaces the documented answer of the next calls; cleared by reset(). */
  answer?: (request: TransfiFakeRequest) => TransfiFakeAnswer | undefined;
  reset(): void;
  close(): Promise<void>;
}

export const FAKE_TRANSFI = { username: 'shop_sandbox', password: 'Zq7xK2mP9wL4tR8vB3nC6yD1hJ5gF0sA', mid: 'ABCDEF_NA_NA' } as const;

export async function startTransfiFake(expected = FAKE_TRANSFI): Promise<TransfiFake> {
  const byToken = new Map<string, TransfiFakeOrder>();
  const hanging = new Set<() => void>();
  const fake: TransfiFake = {
    url: '',
    requests: [],
    problems: [],
    orders: new Map(),
    orderOfPaymentUrl: (url) => byToken.get(new URL(url).searchParams.get('paytoken') ?? ''),
    reset() {
      fake.requests = [];
      fake.problems = [];
      fake.orders.clear();
      byToken.clear();
      delete fake.answer;
    },
    close: () =>
      new Promise((resolve) => {
        for (const release of hanging) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const json = (status: number, body: unknown): TransfiFakeAnswer => ({ status, body: JSON.stringify(body) });
  const check = (condition: boolean, problem: string) => {
    if (!condition) fake.problems.push(problem);
    return condition;
  };
  const authentic = (request: TransfiFakeRequest) =>
    [
      check(
        request.headers.authorization === `Basic ${Buffer.from(`${expected.username}:${expected.password}`).toString('base64')}`,
        `${request.path}: Authorization is not Basic username:password`,
      ),
      check(request.headers.mid === expected.mid, `${request.path}: MID header missing or wrong`),
    ].every(Boolean);

  function create(request: TransfiFakeRequest): TransfiFakeAnswer {
    if (!authentic(request)) return json(401, { message: 'Unauthorized' });
    check(String(request.headers['content-type']).startsWith('application/json'), 'create: content-type not JSON');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      fake.problems.push('create: body is not JSON');
      return json(400, { message: 'Invalid JSON' });
    }
    const withdraw = (body.withdrawDetails ?? {}) as Record<string, unknown>;
    const ok = [
      check(typeof body.amount === 'number' && body.amount > 0, 'create: amount is not a positive number'),
      check(typeof body.currency === 'string' && /^[A-Z]{3}$/.test(body.currency), 'create: currency is not a code'),
      check(typeof body.email === 'string' && body.email.includes('@'), 'create: email missing'),
      check(typeof body.paymentType === 'string', 'create: paymentType missing'),
      check(typeof body.purposeCode === 'string', 'create: purposeCode missing'),
      check(typeof body.redirectUrl === 'string' && body.redirectUrl.startsWith('https://'), 'create: redirectUrl not https'),
      check(typeof withdraw.cryptoTicker === 'string', 'create: withdrawDetails.cryptoTicker missing'),
      check(typeof withdraw.walletAddress === 'string' && /^0x[0-9a-fA-F]{40}$/.test(withdraw.walletAddress), 'create: wallet missing'),
    ].every(Boolean);
    if (!ok) return json(400, { message: 'Validation failed' });
    const orderId = `OR-${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
    const paytoken = [4, 2, 2, 2, 6].map((n) => randomBytes(n).toString('hex')).join('-');
    const order: TransfiFakeOrder = { orderId, request: body, status: 'initiated' };
    fake.orders.set(orderId, order);
    byToken.set(paytoken, order);
    return json(200, {
      orderId,
      paymentUrl: `https://sandbox-pay-widget.transfi.com/pay?paytoken=${paytoken}`,
      partnerContext: body.partnerContext ?? {},
      redirectUrl: body.redirectUrl,
    });
  }

  function getOrder(request: TransfiFakeRequest, orderId: string): TransfiFakeAnswer {
    if (!authentic(request)) return json(401, { message: 'Unauthorized' });
    const order = fake.orders.get(orderId);
    if (!order) return json(404, { message: 'Order not found' });
    const withdraw = order.request.withdrawDetails as Record<string, unknown>;
    return json(200, {
      data: {
        orderId,
        type: 'buy',
        depositCurrency: order.request.currency,
        depositAmount: order.request.amount,
        withdrawCurrency: withdraw.cryptoTicker,
        withdrawAmount: 42.5,
        status: order.status,
        walletAddress: withdraw.walletAddress,
        mid: expected.mid,
        partnerId: order.request.partnerId,
        partnerContext: order.request.partnerContext,
      },
    });
  }

  function route(request: TransfiFakeRequest): TransfiFakeAnswer {
    if (request.method === 'POST' && request.path === '/v2/orders/deposit') return create(request);
    const get = /^\/v2\/orders\/(OR-[A-Za-z0-9-]+)$/.exec(request.path);
    if (request.method === 'GET' && get) return getOrder(request, get[1]!);
    fake.problems.push(`unexpected ${request.method} ${request.path}`);
    return json(404, { message: 'Not found' });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: TransfiFakeRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      fake.requests.push(request);
      const answer = fake.answer?.(request) ?? route(request);
      if (answer === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return fake;
}
