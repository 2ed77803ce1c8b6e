import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A local Simplex Wallet API on node:http, answering as integrations.simplex.com documents: the
 * quote, the payment data (which must name a live quote of the same partner) and the events queue,
 * which the poll method empties: GET /wallet/merchant/v2/events, then DELETE
 * /wallet/merchant/v2/events/<event_id> of each (answered `{"status": "OK"}`; an id not in the
 * queue is a problem).
 * It checks each request (method, path, `Authorization: ApiKey`, JSON body fields) and records
 * what it found wrong; tests override answers to play errors, timeouts and malformed bodies.
 */

export interface SimplexFakeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type SimplexFakeAnswer = { status: number; body: string } | 'hang';

export interface SimplexFake {
  url: string;
  quotes: SimplexFakeRequest[];
  paymentData: SimplexFakeRequest[];
  eventReads: SimplexFakeRequest[];
  eventDeletes: SimplexFakeRequest[];
  /** What the fake found not as documented, in words; empty when every request was right. */
  problems: string[];
  /** The events queue GET /wallet/merchant/v2/events answers. */
  events: unknown[];
  answerQuote?: (request: SimplexFakeRequest) => SimplexFakeAnswer | undefined;
  answerPaymentData?: (request: SimplexFakeRequest) => SimplexFakeAnswer | undefined;
  answerEvents?: (request: SimplexFakeRequest) => SimplexFakeAnswer | undefined;
  answerEventDelete?: (request: SimplexFakeRequest) => SimplexFakeAnswer | undefined;
  reset(): void;
  close(): Promise<void>;
}

export const SIMPLEX_FAKE_API_KEY = 'eyJhbGciOiJIUzI1NiJ9.cGFydG5lcg.sIgNaTuRe0123456789';
export const SIMPLEX_FAKE_PARTNER = 'shopgateway';
/** A quote is good for this long, as valid_until says. */
export const SIMPLEX_FAKE_QUOTE_LIFETIME_MS = 10 * 60_000;

export async function startSimplexFake(nowMs: () => number = Date.now): Promise<SimplexFake> {
  const quotes = new Map<string, Record<string, unknown>>();
  const hanging = new Set<() => void>();
  const fake: SimplexFake = {
    url: '',
    quotes: [],
    paymentData: [],
    eventReads: [],
    eventDeletes: [],
    problems: [],
    events: [],
    reset() {
      fake.quotes = [];
      fake.paymentData = [];
      fake.eventReads = [];
      fake.eventDeletes = [];
      fake.problems = [];
      fake.events = [];
      quotes.clear();
      delete fake.answerQuote;
      delete fake.answerPaymentData;
      delete fake.answerEvents;
      delete fake.answerEventDelete;
    },
    close: () =>
      new Promise((resolve) => {
        for (const release of hanging) release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const json = (status: number, body: unknown): SimplexFakeAnswer => ({ status, body: JSON.stringify(body) });
  const error = (status: number, message: string) => json(status, { error: message });
  const check = (condition: boolean, problem: string) => {
    if (!condition) fake.problems.push(problem);
    return condition;
  };
  const authorized = (request: SimplexFakeRequest) =>
    check(request.headers.authorization === `ApiKey ${SIMPLEX_FAKE_API_KEY}`, `${request.path}: Authorization is not ApiKey <key>`);
  const jsonBody = (request: SimplexFakeRequest): Record<string, unknown> => {
    check(String(request.headers['content-type']).startsWith('application/json'), `${request.path}: content-type not JSON`);
    try {
      return JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      fake.problems.push(`${request.path}: body is not JSON`);
      return {};
    }
  };
  const isUuid = (value: unknown) =>
    typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);

  function quote(request: SimplexFakeRequest): SimplexFakeAnswer {
    if (!authorized(request)) return error(401, 'Unauthorized');
    const body = jsonBody(request);
    const ok = [
      check(/"requested_amount":\d+(\.\d+)?[,}]/.test(request.body), 'quote: requested_amount is not a JSON number'),
      check(typeof body.end_user_id === 'string' && body.end_user_id !== '', 'quote: no end_user_id'),
      check(typeof body.digital_currency === 'string', 'quote: no digital_currency'),
      check(typeof body.fiat_currency === 'string' && /^[A-Z]{3}$/.test(body.fiat_currency), 'quote: fiat_currency not ISO 4217'),
      check(
        body.requested_currency === body.fiat_currency || body.requested_currency === body.digital_currency,
        'quote: requested_currency',
      ),
      check(body.wallet_id === SIMPLEX_FAKE_PARTNER, 'quote: wallet_id is not the partner'),
      check(typeof body.client_ip === 'string' && body.client_ip !== '', 'quote: no client_ip'),
    ].every(Boolean);
    if (!ok) return error(400, 'invalid quote request');
    const id = randomUUID();
    const answer = {
      user_id: body.end_user_id,
      quote_id: id,
      wallet_id: body.wallet_id,
      digital_money: { currency: body.digital_currency, amount: 143.21 },
      fiat_money: { currency: body.fiat_currency, base_amount: Number(body.requested_amount) - 5, total_amount: body.requested_amount },
      valid_until: new Date(nowMs() + SIMPLEX_FAKE_QUOTE_LIFETIME_MS).toISOString(),
      supported_digital_networks: ['polygon'],
    };
    quotes.set(id, { ...body, answer });
    return json(200, answer);
  }

  function paymentData(request: SimplexFakeRequest): SimplexFakeAnswer {
    if (!authorized(request)) return error(401, 'Unauthorized');
    const body = jsonBody(request);
    const account = (body.account_details ?? {}) as Record<string, unknown>;
    const login = (account.signup_login ?? {}) as Record<string, unknown>;
    const details = ((body.transaction_details ?? {}) as Record<string, unknown>).payment_details as Record<string, unknown> | undefined;
    const wallet = (details?.destination_wallet ?? {}) as Record<string, unknown>;
    const quoted = quotes.get(String(details?.quote_id));
    const ok = [
      check(account.app_provider_id === SIMPLEX_FAKE_PARTNER, 'payment data: app_provider_id is not the partner'),
      check(typeof account.app_end_user_id === 'string', 'payment data: no app_end_user_id'),
      check(typeof login.ip === 'string' && typeof login.timestamp === 'string', 'payment data: signup_login without ip and timestamp'),
      check(quoted !== undefined, 'payment data: quote_id is not a quote of this partner'),
      check(quoted?.end_user_id === account.app_end_user_id, 'payment data: app_end_user_id is not the end user of the quote'),
      check(isUuid(details?.payment_id), 'payment data: payment_id is not a UUID'),
      check(wallet.currency === quoted?.digital_currency, 'payment data: destination_wallet.currency is not the quoted asset'),
      check(typeof wallet.address === 'string' && /^0x[0-9a-fA-F]{40}$/.test(wallet.address), 'payment data: no destination address'),
    ].every(Boolean);
    if (!ok) return error(400, 'invalid payment data');
    return json(200, { is_kyc_update_required: false });
  }

  function events(request: SimplexFakeRequest): SimplexFakeAnswer {
    if (!authorized(request)) return error(401, 'Unauthorized');
    return json(200, { events: fake.events });
  }

  function deleteEvent(request: SimplexFakeRequest, eventId: string): SimplexFakeAnswer {
    if (!authorized(request)) return error(401, 'Unauthorized');
    const index = fake.events.findIndex((event) => (event as { event_id?: unknown }).event_id === eventId);
    if (!check(index !== -1, `DELETE events/${eventId}: no such event in the queue`)) return error(404, 'event not found');
    fake.events.splice(index, 1);
    return json(200, { status: 'OK' });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      let answer: SimplexFakeAnswer;
      if (request.method === 'POST' && request.path === '/wallet/merchant/v2/quote') {
        fake.quotes.push(request);
        answer = fake.answerQuote?.(request) ?? quote(request);
      } else if (request.method === 'POST' && request.path === '/wallet/merchant/v2/payments/partner/data') {
        fake.paymentData.push(request);
        answer = fake.answerPaymentData?.(request) ?? paymentData(request);
      } else if (request.method === 'GET' && request.path === '/wallet/merchant/v2/events') {
        fake.eventReads.push(request);
        answer = fake.answerEvents?.(request) ?? events(request);
      } else if (request.method === 'DELETE' && request.path.startsWith('/wallet/merchant/v2/events/')) {
        fake.eventDeletes.push(request);
        const eventId = decodeURIComponent(request.path.slice('/wallet/merchant/v2/events/'.length));
        answer = fake.answerEventDelete?.(request) ?? deleteEvent(request, eventId);
      } else {
        fake.problems.push(`unexpected ${request.method} ${request.path}`);
        answer = error(404, 'Not Found');
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
