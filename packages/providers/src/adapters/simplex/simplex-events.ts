import type { ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderStatusQuery, type ProviderWebhookEvent } from '../../provider-contract';
import type { ProviderEventStore } from '../../support/provider-event-store';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { isObject, lookupAnswer } from '../../support/session-call';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJson } from '../../support/webhook-json';

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
 * - payment_simplexcc_refunded is `failed` (charged, then given back); declined is `declined`. Neither event
 *   carries a documented reason: the decline kind is `other`.
 * - One consumer (payment-redirect's, under a PostgreSQL advisory lock) empties the queue as the
 *   poll method says, keeping every event in PostgreSQL; status() reads the kept copy, never the
 *   queue, so replicas and payments never take events from each other. Simplex's limit on the
 *   queue's length is not on a page read.
 */
const SIMPLEX = 'simplex';
const EVENT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

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
    paymentId: text(payment.partner_end_user_id),
    providerReference: payment.id,
    reason:
      status === 'declined' ? 'Simplex declined the card payment.' : status === 'failed' ? 'Simplex refunded the card payment.' : undefined,
    refunded: event.name === 'payment_simplexcc_refunded',
  }).event;
}

/** A webhook body (one event, as the events API lists them), read as a hint: the adapter asks the events API after. */
export function simplexWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJson(rawBody, 'Simplex webhook body');
  if (!isObject(body) || !isObject(body.payment)) throw new ProviderWebhookError('Simplex webhook body is not an event with a payment');
  const event = simplexEvent(body);
  if (!event) return { kind: 'ignored', why: `event ${String(body.name).slice(0, 60)}` };
  return { kind: 'event', event };
}

/**
 * The poll method (integrations.simplex.com/docs/poll-method): GET <API>/wallet/merchant/v2/events,
 * keep each event, then DELETE <API>/wallet/merchant/v2/events/<event_id> (answered `{"status":
 * "OK"}`), one by one. Kept before deleted: a consumer that stops between the two keeps it once (the
 * store ignores an event id it has) and deletes it next time. An event without an id cannot be
 * deleted and is not kept. Answers what the kept events say, so their payments are asked at once.
 */
export async function consumeSimplexEvents(
  http: ProviderHttpClient,
  apiUrl: string,
  authorization: string,
  store: ProviderEventStore,
  signal: AbortSignal,
): Promise<ProviderWebhookEvent[]> {
  const response = await http.request({
    method: 'GET',
    call: 'status',
    url: `${apiUrl}/wallet/merchant/v2/events`,
    headers: { authorization, accept: 'application/json' },
    signal,
    retryable: true,
  });
  const body = lookupAnswer('Simplex', 'events', response);
  if (!isObject(body) || !Array.isArray(body.events)) throw new Error('Simplex answered the events look-up without an events array');
  const said: ProviderWebhookEvent[] = [];
  for (const raw of body.events) {
    if (!isObject(raw) || typeof raw.event_id !== 'string' || !EVENT_ID.test(raw.event_id)) continue;
    const event = simplexEvent(raw);
    await store.save(SIMPLEX, {
      eventId: raw.event_id,
      ...(event?.match.providerReference ? { providerReference: event.match.providerReference } : {}),
      ...(event?.match.paymentId ? { paymentId: event.match.paymentId } : {}),
      body: raw,
    });
    const deleted = await http.request({
      method: 'DELETE',
      call: 'status',
      url: `${apiUrl}/wallet/merchant/v2/events/${encodeURIComponent(raw.event_id)}`,
      headers: { authorization, accept: 'application/json' },
      signal,
      // Deleting an event twice deletes it once.
      retryable: true,
    });
    const answer = lookupAnswer('Simplex', 'event delete', deleted);
    if (!isObject(answer) || answer.status !== 'OK') throw new Error('Simplex did not answer the event delete with status OK');
    if (event) said.push(event);
  }
  return said;
}

/**
 * The payment's latest event among those kept (consumeSimplexEvents): by Simplex's payment id once
 * known, else by our payment id (partner_end_user_id); null while none is kept.
 */
export async function simplexPaymentStatus(store: ProviderEventStore, query: ProviderStatusQuery): Promise<ProviderWebhookEvent | null> {
  const kept = await store.find(
    SIMPLEX,
    query.providerReference ? { providerReference: query.providerReference } : { paymentId: query.paymentId },
  );
  const mine = kept
    .filter(isObject)
    .map((raw) => ({ raw, event: simplexEvent(raw) }))
    .filter((entry): entry is { raw: Record<string, unknown>; event: ProviderWebhookEvent } => entry.event !== undefined);
  // The event last in time speaks for the payment.
  const latest = mine.sort((a, b) => String(b.raw.timestamp ?? '').localeCompare(String(a.raw.timestamp ?? '')))[0];
  return latest?.event ?? null;
}
