import { headerOf, jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';
import { decimalOf } from './quote-api-fake';

/**
 * A local Guardarian: POST /v1/transaction and GET /v1/transaction/{id} as its reference documents
 * them (x-api-key; one create a minute per source IP, the customer's IP taken from X-Forwarded-For;
 * errors as `{statusCode, code, message}`), and GET /v1/estimate as integrators call it.
 * Transactions are kept, so a look-up answers what was created; `setStatus` moves one on, as
 * Guardarian would.
 */
export interface GuardarianFake extends DocumentedFake {
  apiKey: string;
  setStatus(id: string, status: string, outputHash?: string): void;
}

const RATE_WINDOW_MS = 60_000;
const ERROR_CODES: Record<number, string> = { 403: 'INVALID_TOKEN', 404: 'NOT_FOUND', 429: 'TOO_MANY_REQUESTS' };
const FIRST_ID = 5517577077;
/** The fee of the network Guardarian sends USDC on, in USDC base units (0.05 USDC). */
const NETWORK_FEE_UNITS = 50_000n;
/** Guardarian's service fee in the fake's estimates, basis points of from_amount (3 %). */
const SERVICE_FEE_BPS = 300;

/** `checkoutOrigin`: where the fake's redirect_url points (Guardarian's live checkout; its staging one for a test-mode app). */
export async function startGuardarianFake(
  apiKey = 'b9ee06c9-269d-4260-8cc5-1301da21197b',
  checkoutOrigin = 'https://payments.guardarian.com',
): Promise<GuardarianFake> {
  const transactions = new Map<string, Record<string, unknown>>();
  const lastCreateByIp = new Map<string, number>();
  let nextId = FIRST_ID;
  const error = (status: number, code: string, message: string | string[]) => jsonAnswer(status, { statusCode: status, code, message });
  const invalidToken = (request: FakeRequest) => request.headers['x-api-key'] !== apiKey;

  function create(request: FakeRequest): FakeAnswer {
    if (invalidToken(request)) return error(403, 'INVALID_TOKEN', 'Invalid token');
    if (!sentAsJson(request)) return error(400, 'BAD_REQUEST', 'a JSON body is expected');
    const forwarded = headerOf(request, 'x-forwarded-for');
    const ip = forwarded ? forwarded.split(',')[0]!.trim() : request.remoteAddress;
    const last = lastCreateByIp.get(ip);
    if (last !== undefined && Date.now() - last < RATE_WINDOW_MS) return error(429, 'TOO_MANY_REQUESTS', 'Too Many Requests');
    const body = fake.jsonBody(request);
    if (!body) return error(400, 'BAD_REQUEST', 'body is not JSON');
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
    return jsonAnswer(201, transaction);
  }

  /**
   * GET /v1/estimate (guardarian-quote.ts says where its shape is from): the service fee
   * (SERVICE_FEE_BPS) comes out of from_amount, the rest converted at 1 and the network fee taken
   * from the USDC; `value` is what is received, a decimal string.
   */
  function estimate(request: FakeRequest): FakeAnswer {
    if (invalidToken(request)) return error(403, 'INVALID_TOKEN', 'Invalid token');
    const query = new URL(request.path, 'http://fake').searchParams;
    const amount = query.get('from_amount') ?? '';
    const currency = query.get('from_currency') ?? '';
    const documented = [
      fake.check(
        [...query.keys()].sort().join() === 'from_amount,from_currency,from_network,to_currency,to_network',
        `estimate: query ${request.path}`,
      ),
      fake.check(/^\d{1,12}\.\d{2}$/.test(amount), `estimate: from_amount ${amount}`),
      fake.check(
        /^[A-Z]{3}$/.test(currency) && query.get('from_network') === currency,
        `estimate: from ${currency} on ${String(query.get('from_network'))}`,
      ),
      fake.check(
        query.get('to_currency') === 'USDC' && query.get('to_network') === 'MATIC',
        `estimate: to ${String(query.get('to_currency'))} on ${String(query.get('to_network'))}`,
      ),
    ].every(Boolean);
    if (!documented) return error(400, 'BAD_REQUEST', 'Invalid params');
    const cents = BigInt(amount.replace('.', ''));
    const fee = (cents * BigInt(SERVICE_FEE_BPS) + 9_999n) / 10_000n;
    const received = (cents - fee) * 10_000n - NETWORK_FEE_UNITS;
    return jsonAnswer(200, {
      from_currency: currency,
      from_network: currency,
      to_currency: 'USDC',
      to_network: 'MATIC',
      value: decimalOf(received, 6),
      service_fees: [{ name: 'Service fee', amount: decimalOf(fee, 2), currency, percentage: `${SERVICE_FEE_BPS / 100}%` }],
      converted_amount: { amount: decimalOf(cents - fee, 2), currency },
      network_fee: { amount: decimalOf(NETWORK_FEE_UNITS, 6), currency: 'USDC' },
      estimated_exchange_rate: '1',
    });
  }

  const fake = await startDocumentedFake({
    routes: [
      { method: 'POST', path: '/v1/transaction', answer: create },
      { method: 'GET', path: '/v1/estimate', answer: estimate },
      {
        method: 'GET',
        path: /^\/v1\/transaction\/([^/]+)$/,
        answer: (request, [id]) => {
          if (invalidToken(request)) return error(403, 'INVALID_TOKEN', 'Invalid token');
          const transaction = transactions.get(id!);
          return transaction ? jsonAnswer(200, transaction) : error(404, 'NOT_FOUND', 'Transaction not found');
        },
      },
    ],
    refusal: (status, message) => error(status, ERROR_CODES[status] ?? 'BAD_REQUEST', message),
    reset: () => {
      transactions.clear();
      nextId = FIRST_ID;
      lastCreateByIp.clear();
    },
  });
  return Object.assign(fake, {
    apiKey,
    setStatus(id: string, status: string, outputHash?: string) {
      const transaction = transactions.get(id);
      if (!transaction) throw new Error(`the fake has no transaction ${id}`);
      transaction.status = status;
      if (outputHash) transaction.output_hash = outputHash;
    },
  });
}
