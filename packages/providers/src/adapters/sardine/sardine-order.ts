import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderWebhookEvent } from '../../provider-contract';
import { isObject } from '../../support/session-call';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJson } from '../../support/webhook-json';

/**
 * Sardine's order statuses, lower-cased: the Get Order(s) page of the on-ramp API reference
 * (Draft, Processed, Declined, UserCustody, Complete, Expired; the NFT reference adds Cancelled and
 * Refunded) and the on/off-ramp webhooks page (draft, expired, declined, processing, processed,
 * complete). `processed` is the card charged, the crypto not yet sent: `charged`, never final.
 * `usercustody` is the crypto bought but held in Sardine's custody, not in our wallet: `charged`.
 * `complete` is the crypto delivered (a txHash on chain): `paid`.
 */
export const SARDINE_ORDER_STATUS: Readonly<Record<string, { status: ProviderPaymentStatus; reason?: string; declineKind?: DeclineKind }>> =
  {
    draft: { status: 'pending' },
    processing: { status: 'pending' },
    processed: { status: 'charged' },
    usercustody: { status: 'charged' },
    complete: { status: 'paid' },
    declined: { status: 'declined', reason: 'Sardine declined the card payment.' },
    // Not confirmed in time: the one failure whose reason the status names (declined, cancelled, refunded: `other`).
    expired: { status: 'failed', reason: 'The purchase expired at Sardine before it was confirmed.', declineKind: 'abandoned' },
    cancelled: { status: 'failed', reason: 'Sardine cancelled the purchase.' },
    refunded: { status: 'failed', reason: 'Sardine refunded the payment.' },
  };

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
/** Our referenceId: the payment id, with `:<attempt>` for a fresh checkout of the same payment. */
const REFERENCE = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?::\d{1,6})?$/;

/** The payment id a referenceId we sent names; undefined for anything else. */
export function paymentIdOfReference(reference: unknown): string | undefined {
  return typeof reference === 'string' ? REFERENCE.exec(reference)?.[1] : undefined;
}

/**
 * One order (Get Order(s), or a webhook's `order`) read into the gateway's words; undefined for a
 * status word not mapped. The referenceId we sent is the provider reference: the look-up filters
 * by it. Its delivery transaction is `withdrawal.txHash` (the reference's example) or `transactionHash`.
 */
export function sardineOrderEvent(order: Record<string, unknown>, word: unknown = order.status): ProviderWebhookEvent | undefined {
  const raw = typeof word === 'string' ? word : '';
  const mapped = SARDINE_ORDER_STATUS[raw.toLowerCase()];
  if (!mapped) return undefined;
  const reference = typeof order.referenceId === 'string' ? order.referenceId : undefined;
  const withdrawal = isObject(order.withdrawal) ? order.withdrawal : {};
  const wallet = typeof order.walletAddress === 'string' ? order.walletAddress : withdrawal.walletAddress;
  const { event } = paymentEvent({
    status: mapped.status,
    rawStatus: raw,
    paymentId: paymentIdOfReference(reference),
    providerReference: reference,
    walletAddress: text(wallet),
    reason: mapped.reason,
    declineKind: mapped.declineKind,
    refunded: raw.toLowerCase() === 'refunded',
  });
  const hash = [withdrawal.txHash, order.transactionHash].find((value) => typeof value === 'string' && TX_HASH.test(value));
  return mapped.status === 'paid' && typeof hash === 'string' ? { ...event, txHash: hash } : event;
}

/**
 * A webhook body (already verified): `{"eventType": "order.<status>", "id", "order": {"id",
 * "referenceId", "status", …}}` as the NFT checkout webhooks page shows one; the status word comes
 * from the event type (with or without `order.`), else from the order.
 */
export function sardineWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJson(rawBody, 'Sardine webhook body');
  if (!isObject(body) || !isObject(body.order)) throw new ProviderWebhookError('Sardine webhook has no order');
  const type = typeof body.eventType === 'string' ? body.eventType : '';
  const word = type === '' ? body.order.status : type.replace(/^order\./, '');
  const event = sardineOrderEvent(body.order, word);
  if (!event) return { kind: 'ignored', why: `event ${(type || String(word)).slice(0, 60)}` };
  return { kind: 'event', event };
}

/** The orders in a Get Order(s) answer: a list, `{data: [...]}`, or one order (the reference's example). */
export function ordersIn(body: unknown): Record<string, unknown>[] {
  const list = Array.isArray(body)
    ? body
    : isObject(body) && Array.isArray(body.data)
      ? body.data
      : isObject(body) && body.id
        ? [body]
        : null;
  if (list === null) throw new Error('Sardine answered the order look-up with neither orders nor an order');
  return list.filter(isObject);
}
