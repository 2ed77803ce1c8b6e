import { randomUUID } from 'node:crypto';
import { jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * A local Simplex Wallet API, answering as integrations.simplex.com documents: the quote, the
 * payment data (which must name a live quote of the same partner) and the events queue, which the
 * poll method empties: GET /wallet/merchant/v2/events, then DELETE
 * /wallet/merchant/v2/events/<event_id> of each (answered `{"status": "OK"}`; an id not in the
 * queue is a problem). Every call needs `Authorization: ApiKey`. Each call is also recorded in its
 * own list, and `answer<Call>` plays that call otherwise (as `script` does any).
 */
type Answer = (request: FakeRequest) => FakeAnswer | undefined;

export interface SimplexFake extends DocumentedFake {
  quotes: FakeRequest[];
  paymentData: FakeRequest[];
  eventReads: FakeRequest[];
  eventDeletes: FakeRequest[];
  /** The events queue GET /wallet/merchant/v2/events answers. */
  events: unknown[];
  answerQuote?: Answer;
  answerPaymentData?: Answer;
  answerEvents?: Answer;
  answerEventDelete?: Answer;
}

export const SIMPLEX_FAKE_API_KEY = 'eyJhbGciOiJIUzI1NiJ9.cGFydG5lcg.sIgNaTuRe0123456789';
export const SIMPLEX_FAKE_PARTNER = 'shopgateway';
/** A quote is good for this long, as valid_until says. */
export const SIMPLEX_FAKE_QUOTE_LIFETIME_MS = 10 * 60_000;

type Call = {
  list: 'quotes' | 'paymentData' | 'eventReads' | 'eventDeletes';
  override: 'answerQuote' | 'answerPaymentData' | 'answerEvents' | 'answerEventDelete';
};

export async function startSimplexFake(nowMs: () => number = Date.now): Promise<SimplexFake> {
  const quoted = new Map<string, Record<string, unknown>>();
  const error = (status: number, message: string) => jsonAnswer(status, { error: message });
  const isUuid = (value: unknown) =>
    typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);
  const jsonBody = (request: FakeRequest) => {
    fake.check(sentAsJson(request), `${request.path}: content-type not JSON`);
    return fake.jsonBody(request) ?? {};
  };

  /** Records the call in its list; its override, else its documented answer (after the API key). */
  const call =
    ({ list, override }: Call, documented: (request: FakeRequest, params: string[]) => FakeAnswer) =>
    (request: FakeRequest, params: string[]): FakeAnswer => {
      fake[list].push(request);
      const authorized = fake.check(
        request.headers.authorization === `ApiKey ${SIMPLEX_FAKE_API_KEY}`,
        `${request.path}: Authorization is not ApiKey <key>`,
      );
      return fake[override]?.(request) ?? (authorized ? documented(request, params) : error(401, 'Unauthorized'));
    };

  function quote(request: FakeRequest): FakeAnswer {
    const { check } = fake;
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
    quoted.set(id, { ...body, answer });
    return jsonAnswer(200, answer);
  }

  function paymentData(request: FakeRequest): FakeAnswer {
    const { check } = fake;
    const body = jsonBody(request);
    const account = (body.account_details ?? {}) as Record<string, unknown>;
    const login = (account.signup_login ?? {}) as Record<string, unknown>;
    const details = ((body.transaction_details ?? {}) as Record<string, unknown>).payment_details as Record<string, unknown> | undefined;
    const wallet = (details?.destination_wallet ?? {}) as Record<string, unknown>;
    const quote = quoted.get(String(details?.quote_id));
    const ok = [
      check(account.app_provider_id === SIMPLEX_FAKE_PARTNER, 'payment data: app_provider_id is not the partner'),
      check(typeof account.app_end_user_id === 'string', 'payment data: no app_end_user_id'),
      check(typeof login.ip === 'string' && typeof login.timestamp === 'string', 'payment data: signup_login without ip and timestamp'),
      check(quote !== undefined, 'payment data: quote_id is not a quote of this partner'),
      check(quote?.end_user_id === account.app_end_user_id, 'payment data: app_end_user_id is not the end user of the quote'),
      check(isUuid(details?.payment_id), 'payment data: payment_id is not a UUID'),
      check(wallet.currency === quote?.digital_currency, 'payment data: destination_wallet.currency is not the quoted asset'),
      check(typeof wallet.address === 'string' && /^0x[0-9a-fA-F]{40}$/.test(wallet.address), 'payment data: no destination address'),
    ].every(Boolean);
    if (!ok) return error(400, 'invalid payment data');
    return jsonAnswer(200, { is_kyc_update_required: false });
  }

  function deleteEvent(_request: FakeRequest, [eventId]: string[]): FakeAnswer {
    const index = fake.events.findIndex((event) => (event as { event_id?: unknown }).event_id === eventId);
    if (!fake.check(index !== -1, `DELETE events/${eventId}: no such event in the queue`)) return error(404, 'event not found');
    fake.events.splice(index, 1);
    return jsonAnswer(200, { status: 'OK' });
  }

  const documented = await startDocumentedFake({
    routes: [
      { method: 'POST', path: '/wallet/merchant/v2/quote', answer: call({ list: 'quotes', override: 'answerQuote' }, quote) },
      {
        method: 'POST',
        path: '/wallet/merchant/v2/payments/partner/data',
        answer: call({ list: 'paymentData', override: 'answerPaymentData' }, paymentData),
      },
      {
        method: 'GET',
        path: '/wallet/merchant/v2/events',
        answer: call({ list: 'eventReads', override: 'answerEvents' }, () => jsonAnswer(200, { events: fake.events })),
      },
      {
        method: 'DELETE',
        path: /^\/wallet\/merchant\/v2\/events\/([^/]+)$/,
        answer: call({ list: 'eventDeletes', override: 'answerEventDelete' }, deleteEvent),
      },
    ],
    refusal: error,
    reset: () => {
      for (const list of ['quotes', 'paymentData', 'eventReads', 'eventDeletes'] as const) fake[list] = [];
      for (const override of ['answerQuote', 'answerPaymentData', 'answerEvents', 'answerEventDelete'] as const) delete fake[override];
      fake.events = [];
      quoted.clear();
    },
  });
  const fake: SimplexFake = Object.assign(documented, {
    quotes: [] as FakeRequest[],
    paymentData: [] as FakeRequest[],
    eventReads: [] as FakeRequest[],
    eventDeletes: [] as FakeRequest[],
    events: [] as unknown[],
  });
  return fake;
}
