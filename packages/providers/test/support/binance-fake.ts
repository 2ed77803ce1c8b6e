import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

/**
 * A local Binance Pay Onchain API: POST /papi/v1/ramp/connect/buy/pre-order and
 * /papi/v1/ramp/connect/order, each checked as the request-signing page describes it (X-Tesla-ClientId,
 * X-Tesla-SignAccessToken, X-Tesla-Timestamp, and X-Tesla-Signature: base64 SHA256withRSA of
 * `body + timestamp` verified with the partner's public key). A pre-order needs the pre-order page's
 * required fields and an externalOrderId never used before; it answers `{code: "000000", success,
 * data: {link, linkExpireTime}}`. The look-up answers the order as `addOrder` left it (INIT after a
 * pre-order). Binance's error codes are not all documented: `{code: "000001", success: false}` here.
 * `script` answers a request otherwise, or not at all ('hang').
 */
export interface BinanceFakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface BinanceFake {
  url: string;
  clientId: string;
  apiKey: string;
  /** The partner's key pair (Binance holds the public half): the adapter signs with the private one. */
  partnerPrivateKeyPem: string;
  /** Binance's key pair: tests sign webhooks with the private half; the adapter verifies with the public one. */
  binancePrivateKey: KeyObject;
  binancePublicKeyPem: string;
  requests: BinanceFakeRequest[];
  /** What the fake refused and why (a test expects it empty). */
  problems: string[];
  script: ((request: BinanceFakeRequest) => { status: number; body: string } | 'hang' | undefined) | undefined;
  addOrder(order: Record<string, unknown>): void;
  reset(): void;
  close(): Promise<void>;
}

const REQUIRED_PRE_ORDER = ['externalOrderId', 'merchantCode', 'merchantName', 'ts'] as const;

export async function startBinanceFake(now: () => number = Date.now): Promise<BinanceFake> {
  const partner = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const binanceKeys = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const orders = new Map<string, Record<string, unknown>>();
  const fake: BinanceFake = {
    url: '',
    clientId: 'gateway-client-7',
    apiKey: 'bnc-sign-access-token-4f7a1c9e2b6d',
    partnerPrivateKeyPem: partner.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    binancePrivateKey: binanceKeys.privateKey,
    binancePublicKeyPem: binanceKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    requests: [],
    problems: [],
    script: undefined,
    addOrder: (order) => orders.set(String(order.externalOrderId), order),
    reset() {
      fake.requests.length = 0;
      fake.problems.length = 0;
      fake.script = undefined;
      orders.clear();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const refuse = (why: string, status = 200) => {
    fake.problems.push(why);
    return { status, body: JSON.stringify({ code: '000001', message: why, data: null, success: false }) };
  };
  const ok = (data: unknown) => ({ status: 200, body: JSON.stringify({ code: '000000', message: 'success', data, success: true }) });

  function documented(request: BinanceFakeRequest): { status: number; body: string } {
    const header = (name: string) => (typeof request.headers[name] === 'string' ? (request.headers[name] as string) : '');
    if (request.method !== 'POST') return refuse(`method ${request.method}`, 405);
    if (header('x-tesla-clientid') !== fake.clientId || header('x-tesla-signaccesstoken') !== fake.apiKey) {
      return refuse('unknown client id or API key', 401);
    }
    if (header('content-type') !== 'application/json') return refuse('a JSON body is expected', 400);
    const timestamp = header('x-tesla-timestamp');
    const signed = verify(
      'sha256',
      Buffer.from(`${request.text}${timestamp}`),
      partner.publicKey,
      Buffer.from(header('x-tesla-signature'), 'base64'),
    );
    if (!/^\d{13}$/.test(timestamp) || !signed) return refuse('signature does not verify', 401);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.text) as Record<string, unknown>;
    } catch {
      return refuse('body is not JSON', 400);
    }
    if (request.path === '/papi/v1/ramp/connect/order') {
      const order = orders.get(String(body.externalOrderId));
      return order ? ok(order) : refuse('order not found');
    }
    if (request.path !== '/papi/v1/ramp/connect/buy/pre-order') return refuse(`path ${request.path}`, 404);
    const missing = REQUIRED_PRE_ORDER.filter((field) => body[field] === undefined);
    if (missing.length > 0) return refuse(`${missing.join(', ')} required`);
    if (!/^[A-Za-z0-9]{1,64}$/.test(String(body.externalOrderId))) {
      fake.problems.push(`externalOrderId ${String(body.externalOrderId)} is not letters and digits`);
      return refuse('externalOrderId has special characters');
    }
    if (orders.has(String(body.externalOrderId))) return refuse('duplicate externalOrderId');
    if (typeof body.fiatAmount !== 'number' || typeof body.address !== 'string' || typeof body.network !== 'string') {
      return refuse('fiatAmount, address and network expected');
    }
    orders.set(String(body.externalOrderId), { externalOrderId: body.externalOrderId, status: 0, type: 1 });
    const link = `https://app.binance.com/uni-qr/ccnt?externalOrderId=${String(body.externalOrderId)}`;
    return ok({ link, linkExpireTime: now() + 15 * 60_000 });
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
