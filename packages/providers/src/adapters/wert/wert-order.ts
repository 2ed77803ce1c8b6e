import type { ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderWebhookEvent } from '../../provider-contract';
import { isObject } from '../../support/session-call';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJson } from '../../support/webhook-json';

/**
 * Wert's order statuses as its Data API answers them (https://docs.wert.io/docs/data-api, each
 * order's `status`; the widget's payment-status event lists pending, canceled, failed, success).
 * `success` is the order done, the crypto sent (`tx_id` its transaction): `paid`. No status says
 * "card charged, crypto not yet sent", so `charged` is never reached. `progress` and `created` are
 * not on a page read (Wert's lifecycle diagram is an image): read as under way. Other words say nothing yet.
 * `failed` and `canceled` come with no documented reason: the decline kind is `other`.
 */
export const WERT_ORDER_STATUS: Readonly<Record<string, { status: ProviderPaymentStatus; reason?: string }>> = {
  created: { status: 'pending' },
  pending: { status: 'pending' },
  progress: { status: 'pending' },
  success: { status: 'paid' },
  failed: { status: 'failed', reason: 'Wert could not complete this purchase.' },
  canceled: { status: 'failed', reason: 'The purchase was cancelled at Wert.' },
  cancelled: { status: 'failed', reason: 'The purchase was cancelled at Wert.' },
};

/** The events of https://docs.wert.io/docs/webhooks about an order; the others (login, KYC steps) say nothing about one. */
export const WERT_ORDER_EVENTS: Readonly<Record<string, ProviderPaymentStatus>> = {
  payment_started: 'pending',
  order_complete: 'paid',
  order_failed: 'failed',
  order_canceled: 'failed',
};

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * One order of the Data API's `data`, read into the gateway's words (its `address`, `network` and
 * `commodity` the destination); undefined for a status word not mapped.
 */
export function wertOrderEvent(order: Record<string, unknown>): ProviderWebhookEvent | undefined {
  const raw = typeof order.status === 'string' ? order.status : '';
  const mapped = WERT_ORDER_STATUS[raw];
  if (!mapped) return undefined;
  const { event } = paymentEvent({
    status: mapped.status,
    rawStatus: raw,
    paymentId: text(order.click_id),
    providerReference: text(order.order_id),
    walletAddress: text(order.address),
    network: text(order.network),
    asset: text(order.commodity),
    reason: mapped.reason,
  });
  const hash = order.tx_id;
  return mapped.status === 'paid' && typeof hash === 'string' && TX_HASH.test(hash) ? { ...event, txHash: hash } : event;
}

/**
 * A webhook `{"type": …, "click_id": …, "order": {"id", "address", "transaction_id", …}}`. Wert does
 * not sign it: it only names the payment to look up (the status service never records its status).
 */
export function wertWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJson(rawBody, 'Wert webhook body');
  if (!isObject(body) || typeof body.type !== 'string') throw new ProviderWebhookError('Wert webhook has no event type');
  const status = WERT_ORDER_EVENTS[body.type];
  if (!status) return { kind: 'ignored', why: `event ${body.type.slice(0, 40)}` };
  const order = isObject(body.order) ? body.order : {};
  return paymentEvent({
    status,
    rawStatus: body.type,
    paymentId: text(body.click_id),
    providerReference: text(order.id),
    walletAddress: text(order.address),
  });
}
