import type { ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderStatusQuery, type ProviderWebhookEvent } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { isObject, lookupAnswer } from '../../support/session-call';
import { paymentEvent } from '../../support/webhook-event';

/**
 * Simplex's events (Wallet API, "Events": https://integrations.simplex.com/wallet-api-integration#events-api_group):
 * GET <API>/wallet/merchant/v2/events with `Authorization: ApiKey <key>` answers
 * `{"events": [{event_id, name, payment: {id, status, partner_end_user_id, …}, timestamp}]}`, every
 * event of the partner not yet deleted. The event's `name` says what happened to the payment.
 *
 * Choices where the docs are open:
 * - payment_simplexcc_approved is `charged` (Simplex approved and charged the card; the crypto is
 *   sent after), payment_simplexcc_crypto_sent is `paid`. The crypto_sent event is not on a page
 *   read (it is in integrators' code): until it arrives, `paid` comes from the chain alone.
 * - payment_simplexcc_refunded is `failed` (charged, then given back); declined is `declined`.
 * - The look-up never DELETEs events: it reads the queue for one payment, and deleting would take
 *   the events from the other replicas and payments that read the same queue. Simplex's limit on
 *   the queue's length is not on a page read.
 */
export const SIMPLEX_EVENT_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  payment_request_submitted: 'pending',
  payment_simplexcc_approved: 'charged',
  payment_simplexcc_crypto_sent: 'paid',
  payment_simplexcc_declined: 'declined',
  payment_simplexcc_refunded: 'failed',
};

/** One Simplex event read as what it says of a payment; undefined for an event name the mapping does not know. */
export function simplexEvent(event: unknown): ProviderWebhookEvent | undefined {
  if (!isObject(event) || typeof event.name !== 'string' || !isObject(event.payment)) return undefined;
  const status = SIMPLEX_EVENT_STATUS[event.name];
  const payment = event.payment;
  if (!status || typeof payment.id !== 'string') return undefined;
  return paymentEvent({
    status,
    rawStatus: event.name,
    // The quote's end_user_id is our payment id (simplex-adapter.ts): Simplex echoes it here.
    paymentId: typeof payment.partner_end_user_id === 'string' ? payment.partner_end_user_id : undefined,
    providerReference: payment.id,
    reason:
      status === 'declined' ? 'Simplex declined the card payment.' : status === 'failed' ? 'Simplex refunded the card payment.' : undefined,
    refunded: event.name === 'payment_simplexcc_refunded',
  }).event;
}

/** A webhook body (one event, as the events API lists them), read as a hint: the adapter asks the events API after. */
export function simplexWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new ProviderWebhookError('Simplex webhook body is not JSON');
  }
  if (!isObject(body) || !isObject(body.payment)) throw new ProviderWebhookError('Simplex webhook body is not an event with a payment');
  const event = simplexEvent(body);
  if (!event) return { kind: 'ignored', why: `event ${String(body.name).slice(0, 60)}` };
  return { kind: 'event', event };
}

/**
 * The payment's latest known event in the events queue: by Simplex's payment id once known, else by
 * our payment id (partner_end_user_id); null while the queue holds none.
 */
export async function simplexPaymentStatus(
  http: ProviderHttpClient,
  apiUrl: string,
  authorization: string,
  query: ProviderStatusQuery,
  signal: AbortSignal,
): Promise<ProviderWebhookEvent | null> {
  const response = await http.request({
    method: 'GET',
    url: `${apiUrl}/wallet/merchant/v2/events`,
    headers: { authorization, accept: 'application/json' },
    signal,
    retryable: true,
  });
  const body = lookupAnswer('Simplex', 'events', response);
  if (!isObject(body) || !Array.isArray(body.events)) throw new Error('Simplex answered the events look-up without an events array');
  const mine = body.events
    .map((raw) => ({ raw: raw as Record<string, unknown>, event: simplexEvent(raw) }))
    .filter(({ event }) =>
      query.providerReference
        ? event?.providerReference === query.providerReference
        : event !== undefined && event.match.paymentId === query.paymentId,
    );
  // The queue is in Simplex's order; the event last in time speaks for the payment.
  const latest = mine.sort((a, b) => String(b.raw.timestamp ?? '').localeCompare(String(a.raw.timestamp ?? '')))[0];
  return latest?.event ?? null;
}
