import { randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A local CDP onramp API on node:http, answering as docs.cdp.coinbase.com documents: the session
 * token (POST /onramp/v1/token) and the transaction status (GET /onramp/v1/buy/user/<ref>/transactions).
 * Each request's Bearer JWT is verified with node:crypto against the key's public half (alg, kid,
 * typ, nonce, sub, iss "cdp", aud ["cdp_service"], uris naming this request, a lifetime of at most 120 s); what is found
 * wrong is recorded. Tests override answers to play errors, timeouts and malformed bodies.
 */

export interface CoinbaseFakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The JWT's header and claims, once verified. */
  jwt?: { header: Record<string, unknown>; claims: Record<string, unknown> };
}

export type CoinbaseFakeAnswer = { status: number; body: string } | 'hang';

export interface CoinbaseFake {
  url: string;
  tokens: CoinbaseFakeRequest[];
  lookups: CoinbaseFakeRequest[];
  problems: string[];
  /** The addresses/assets/clientIp a session token was minted for, by token. */
  sessionOf(token: string): Record<string, unknown> | undefined;
  /** Transactions by partnerUserRef, newest first. */
  transactions: Map<string, unknown[]>;
  /** The key the JWTs must be signed with. */
  expected: CdpKeyExpectation;
  answerToken?: (request: CoinbaseFakeRequest) => CoinbaseFakeAnswer | undefined;
  answerLookup?: (request: CoinbaseFakeRequest) => CoinbaseFakeAnswer | undefined;
  reset(): void;
  close(): Promise<void>;
}

export interface CdpKeyExpectation {
  keyId: string;
  publicKey: KeyObject;
  algorithm: 'EdDSA' | 'ES256';
}

export async function startCoinbaseFake(first: CdpKeyExpectation, nowMs: () => number = Date.now): Promise<CoinbaseFake> {
  const sessions = new Map<string, Record<string, unknown>>();
  const hanging = new Set<() => void>();
  const fake: CoinbaseFake = {
    url: '',
    expected: first,
    tokens: [],
    lookups: [],
    problems: [],
    transactions: new Map(),
    sessionOf: (token) => sessions.get(token),
    reset() {
      fake.tokens = [];
      fake.lookups = [];
      fake.problems = [];
      fake.transactions = new Map();
      fake.expected = first;
      sessions.clear();
      delete fake.answerToken;
      delete fake.answerLookup;
    },
    close: () =>
      new Promise((resolve) => {
        for (const release of hanging) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const json = (status: number, body: unknown): CoinbaseFakeAnswer => ({ status, body: JSON.stringify(body) });
  const unauthorized = json(401, { code: 'unauthorized', message: 'Unauthorized' });
  const check = (condition: boolean, problem: string) => {
    if (!condition) fake.problems.push(problem);
    return condition;
  };

  function authenticated(request: CoinbaseFakeRequest, host: string): boolean {
    const match = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(String(request.headers.authorization ?? ''));
    if (!check(match !== null, `${request.path}: no Bearer JWT`)) return false;
    const [, h, c, s] = match!;
    const header = JSON.parse(Buffer.from(h!, 'base64url').toString()) as Record<string, unknown>;
    const claims = JSON.parse(Buffer.from(c!, 'base64url').toString()) as Record<string, unknown>;
    const signature = Buffer.from(s!, 'base64url');
    const signed = Buffer.from(`${h}.${c}`);
    const { expected } = fake;
    const valid =
      expected.algorithm === 'EdDSA'
        ? verify(null, signed, expected.publicKey, signature)
        : verify('sha256', signed, { key: expected.publicKey, dsaEncoding: 'ieee-p1363' }, signature);
    const now = Math.floor(nowMs() / 1000);
    const path = request.path.split('?')[0];
    const ok = [
      check(valid, `${request.path}: JWT signature does not verify`),
      check(header.alg === expected.algorithm, `${request.path}: JWT alg ${String(header.alg)}`),
      check(header.kid === expected.keyId && claims.sub === expected.keyId, `${request.path}: JWT kid/sub is not the key id`),
      check(header.typ === 'JWT', `${request.path}: JWT typ`),
      check(typeof header.nonce === 'string' && /^[0-9a-f]{32}$/.test(header.nonce), `${request.path}: JWT nonce`),
      check(claims.iss === 'cdp', `${request.path}: JWT iss`),
      // What the CDP SDK's generateJwt puts in every JWT (coinbase/cdp-sdk typescript/src/auth/utils/jwt.ts).
      check(JSON.stringify(claims.aud) === '["cdp_service"]', `${request.path}: JWT aud is not ["cdp_service"]`),
      check(JSON.stringify(claims.uris) === JSON.stringify([`${request.method} ${host}${path}`]), `${request.path}: JWT uris`),
      check(typeof claims.nbf === 'number' && typeof claims.exp === 'number', `${request.path}: JWT nbf/exp`),
      check(Number(claims.exp) - Number(claims.nbf) <= 120 && Number(claims.exp) > now - 5, `${request.path}: JWT lifetime`),
    ].every(Boolean);
    if (ok) request.jwt = { header, claims };
    return ok;
  }

  function token(request: CoinbaseFakeRequest, host: string): CoinbaseFakeAnswer {
    if (!authenticated(request, host)) return unauthorized;
    check(String(request.headers['content-type']).startsWith('application/json'), 'token: content-type not JSON');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      fake.problems.push('token: body is not JSON');
      return json(400, { code: 'invalid_request', message: 'body' });
    }
    const addresses = body.addresses as { address?: unknown; blockchains?: unknown }[] | undefined;
    const ok = [
      check(Array.isArray(addresses) && addresses.length > 0, 'token: no addresses'),
      check(
        Array.isArray(addresses) && addresses.every((a) => typeof a.address === 'string' && Array.isArray(a.blockchains)),
        'token: an address without blockchains',
      ),
      check(typeof body.clientIp === 'string' && body.clientIp !== '', 'token: no clientIp'),
    ].every(Boolean);
    if (!ok) return json(400, { code: 'invalid_request', message: 'addresses and clientIp are required' });
    const minted = randomBytes(24).toString('base64url');
    sessions.set(minted, body);
    return json(200, { token: minted, channel_id: '' });
  }

  function lookup(request: CoinbaseFakeRequest, host: string, ref: string): CoinbaseFakeAnswer {
    if (!authenticated(request, host)) return unauthorized;
    const size = Number(new URL(request.path, 'http://x').searchParams.get('page_size') ?? '1');
    const all = fake.transactions.get(ref) ?? [];
    return json(200, { transactions: all.slice(0, size), next_page_key: '', total_count: String(all.length) });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: CoinbaseFakeRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      const host = String(req.headers.host);
      const ref = /^\/onramp\/v1\/buy\/user\/([^/?]+)\/transactions(\?|$)/.exec(request.path)?.[1];
      let answer: CoinbaseFakeAnswer;
      if (request.method === 'POST' && request.path === '/onramp/v1/token') {
        fake.tokens.push(request);
        answer = fake.answerToken?.(request) ?? token(request, host);
      } else if (request.method === 'GET' && ref !== undefined) {
        fake.lookups.push(request);
        answer = fake.answerLookup?.(request) ?? lookup(request, host, decodeURIComponent(ref));
      } else {
        fake.problems.push(`unexpected ${request.method} ${request.path}`);
        answer = json(404, { code: 'not_found', message: 'Not Found' });
      }
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
