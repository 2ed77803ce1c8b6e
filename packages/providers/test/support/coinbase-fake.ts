import { randomBytes, verify, type KeyObject } from 'node:crypto';
import { jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * A local CDP onramp API, answering as docs.cdp.coinbase.com documents: the session token
 * (POST /onramp/v1/token), the transaction status (GET /onramp/v1/buy/user/<ref>/transactions) and
 * the buy quote (POST /onramp/v1/buy/quote).
 * Each request's Bearer JWT is verified with node:crypto against the key's public half (alg, kid,
 * typ, nonce, sub, iss "cdp", aud ["cdp_service"], uris naming this request, a lifetime of at most
 * 120 s); what is found wrong is a problem.
 */
export interface CoinbaseFakeRequest extends FakeRequest {
  /** The JWT's header and claims, once verified. */
  jwt?: { header: Record<string, unknown>; claims: Record<string, unknown> };
}

export interface CoinbaseFake extends DocumentedFake<CoinbaseFakeRequest> {
  /** The addresses/assets/clientIp a session token was minted for, by token. */
  sessionOf(token: string): Record<string, unknown> | undefined;
  /** Transactions by partnerUserRef, newest first. */
  transactions: Map<string, unknown[]>;
  /** The key the JWTs must be signed with (back to the first one on reset). */
  expected: CdpKeyExpectation;
}

export interface CdpKeyExpectation {
  keyId: string;
  publicKey: KeyObject;
  algorithm: 'EdDSA' | 'ES256';
}

/** The reference's paymentMethod enum. */
const BUY_QUOTE_METHODS = [
  'UNSPECIFIED',
  'CARD',
  'ACH_BANK_ACCOUNT',
  'APPLE_PAY',
  'FIAT_WALLET',
  'CRYPTO_ACCOUNT',
  'GUEST_CHECKOUT_CARD',
  'PAYPAL',
  'RTP',
  'GUEST_CHECKOUT_APPLE_PAY',
];
/** The fake's rates, USDC base units per 1.00 of the currency; another currency is quoted in USD. */
const USDC_PER_UNIT: Record<string, bigint> = { USD: 1_000_000n, EUR: 1_080_000n, GBP: 1_250_000n, CAD: 720_000n };

export async function startCoinbaseFake(first: CdpKeyExpectation, nowMs: () => number = Date.now): Promise<CoinbaseFake> {
  const sessions = new Map<string, Record<string, unknown>>();
  const unauthorized = () => fake.refusal(401, 'Unauthorized');

  function authenticated(request: CoinbaseFakeRequest): boolean {
    const { check } = fake;
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
      check(
        JSON.stringify(claims.uris) === JSON.stringify([`${request.method} ${String(request.headers.host)}${path}`]),
        `${request.path}: JWT uris`,
      ),
      check(typeof claims.nbf === 'number' && typeof claims.exp === 'number', `${request.path}: JWT nbf/exp`),
      check(Number(claims.exp) - Number(claims.nbf) <= 120 && Number(claims.exp) > now - 5, `${request.path}: JWT lifetime`),
    ].every(Boolean);
    if (ok) request.jwt = { header, claims };
    return ok;
  }

  function token(request: CoinbaseFakeRequest): FakeAnswer {
    if (!authenticated(request)) return unauthorized();
    fake.check(sentAsJson(request), 'token: content-type not JSON');
    const body = fake.jsonBody(request);
    if (!body) return fake.refusal(400, 'body');
    const addresses = body.addresses as { address?: unknown; blockchains?: unknown }[] | undefined;
    const ok = [
      fake.check(Array.isArray(addresses) && addresses.length > 0, 'token: no addresses'),
      fake.check(
        Array.isArray(addresses) && addresses.every((a) => typeof a.address === 'string' && Array.isArray(a.blockchains)),
        'token: an address without blockchains',
      ),
      fake.check(typeof body.clientIp === 'string' && body.clientIp !== '', 'token: no clientIp'),
    ].every(Boolean);
    if (!ok) return fake.refusal(400, 'addresses and clientIp are required');
    const minted = randomBytes(24).toString('base64url');
    sessions.set(minted, body);
    return jsonAnswer(200, { token: minted, channel_id: '' });
  }

  function transactions(request: CoinbaseFakeRequest, [ref]: string[]): FakeAnswer {
    if (!authenticated(request)) return unauthorized();
    const size = Number(new URL(request.path, 'http://fake').searchParams.get('page_size') ?? '1');
    const all = fake.transactions.get(ref!) ?? [];
    return jsonAnswer(200, { transactions: all.slice(0, size), next_page_key: '', total_count: String(all.length) });
  }

  /**
   * "Create buy quote": the documented body (purchaseCurrency, purchaseNetwork, paymentAmount with two
   * decimals, paymentCurrency, paymentMethod of the enum, country, a US customer's subdivision,
   * destinationAddress optional), nothing else; the answer as the reference's example, snake_case
   * `{currency, value}` objects. The fee: 2.5 % of the total and 0.01 of network fee, the rest bought
   * at the rate below; a payment currency Coinbase does not take is quoted in USD, as documented.
   */
  function buyQuote(request: CoinbaseFakeRequest): FakeAnswer {
    if (!authenticated(request)) return unauthorized();
    fake.check(sentAsJson(request), 'buy quote: content-type not JSON');
    const body = fake.jsonBody(request);
    if (!body) return fake.refusal(400, 'body');
    const documented = new Set([
      'purchaseCurrency',
      'purchaseNetwork',
      'paymentAmount',
      'paymentCurrency',
      'paymentMethod',
      'country',
      'subdivision',
      'destinationAddress',
    ]);
    const { purchaseCurrency, purchaseNetwork, paymentAmount, paymentCurrency, paymentMethod, country, subdivision } = body;
    const ok = [
      fake.check(
        Object.keys(body).every((name) => documented.has(name)),
        `buy quote: undocumented fields ${Object.keys(body)}`,
      ),
      fake.check(purchaseCurrency === 'USDC' && purchaseNetwork === 'polygon', 'buy quote: not USDC on polygon'),
      fake.check(typeof paymentAmount === 'string' && /^\d+\.\d{2}$/.test(paymentAmount), 'buy quote: paymentAmount not two decimals'),
      fake.check(typeof paymentCurrency === 'string' && /^[A-Z]{3}$/.test(paymentCurrency), 'buy quote: paymentCurrency'),
      fake.check(typeof paymentMethod === 'string' && BUY_QUOTE_METHODS.includes(paymentMethod), 'buy quote: paymentMethod'),
      fake.check(typeof country === 'string' && /^[A-Z]{2}$/.test(country), 'buy quote: country'),
      fake.check(
        country !== 'US' || (typeof subdivision === 'string' && /^[A-Z0-9]{1,3}$/.test(subdivision)),
        'buy quote: a US customer without subdivision',
      ),
      fake.check(subdivision === undefined || typeof subdivision === 'string', 'buy quote: subdivision'),
    ].every(Boolean);
    if (!ok) return fake.refusal(400, 'invalid buy quote request');
    const currency = USDC_PER_UNIT[paymentCurrency as string] ? (paymentCurrency as string) : 'USD';
    const totalCents = BigInt((paymentAmount as string).replace('.', ''));
    const feeCents = (totalCents * 250n) / 10_000n;
    const networkCents = 1n;
    const subtotalCents = totalCents - feeCents - networkCents;
    const cents = (value: bigint) => `${value / 100n}.${(value % 100n).toString().padStart(2, '0')}`;
    // USDC base units: the subtotal's cents times the rate (in millionths), over 100.
    const usdc = (subtotalCents * USDC_PER_UNIT[currency]!) / 100n;
    const amount = (value: string) => ({ currency, value });
    return jsonAnswer(200, {
      payment_total: amount(cents(totalCents)),
      payment_subtotal: amount(cents(subtotalCents)),
      purchase_amount: { currency: 'USDC', value: `${usdc / 1_000_000n}.${(usdc % 1_000_000n).toString().padStart(6, '0')}` },
      coinbase_fee: amount(cents(feeCents)),
      network_fee: amount(cents(networkCents)),
      quote_id: randomBytes(8).toString('hex'),
    });
  }

  const documented = await startDocumentedFake<CoinbaseFakeRequest>({
    routes: [
      { method: 'POST', path: '/onramp/v1/token', answer: token },
      { method: 'POST', path: '/onramp/v1/buy/quote', answer: buyQuote },
      { method: 'GET', path: /^\/onramp\/v1\/buy\/user\/([^/]+)\/transactions$/, answer: transactions },
    ],
    refusal: (status, message) => jsonAnswer(status, { code: status === 401 ? 'unauthorized' : 'invalid_request', message }),
    reset: () => {
      fake.transactions = new Map();
      fake.expected = first;
      sessions.clear();
    },
  });
  const fake: CoinbaseFake = Object.assign(documented, {
    expected: first,
    transactions: new Map<string, unknown[]>(),
    sessionOf: (minted: string) => sessions.get(minted),
  });
  return fake;
}
