import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import type { ProviderWebhookEvent } from '../../provider-contract';
import { webhookJson } from '../../support/webhook-json';
import { isObject } from '../../support/session-call';
import { declineKindField } from '../../support/webhook-event';

/**
 * Banxa's order webhook (https://docs.banxa.com/products/hosted-checkout/docs/transaction-lifecycle/webhooks):
 * `{"order_id", "status", "status_date", "order_type", "crypto_coin", …}` — no wallet and no
 * reference of ours. Banxa's advice is to read the order back with Get Order before acting, so
 * the webhook only says which order to read; the status and wallet come from the order.
 * KYC/account webhooks carry no `order_id` and are not about a payment.
 */

/** https://docs.banxa.com/products/hosted-checkout/docs/transaction-lifecycle/order-statuses */
const ORDER_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  pendingPayment: 'pending',
  waitingPayment: 'pending',
  paymentReceived: 'pending',
  inProgress: 'pending',
  extraVerification: 'pending',
  // Submitted to the chain, not yet the two confirmations Banxa waits for: the watcher sees the transfer itself.
  cryptoTransferred: 'pending',
  coinTransferred: 'pending',
  complete: 'paid',
  declined: 'declined',
  cancelled: 'failed',
  // An expired order can still revive if payment arrives late; a later webhook then moves it on.
  expired: 'failed',
  refunded: 'failed',
};

const REASON: Readonly<Record<string, string>> = {
  declined: 'the card payment was declined',
  cancelled: 'Banxa cancelled the order',
  expired: 'the order expired before payment',
  refunded: 'Banxa refunded the payment',
};

/**
 * The reasons the order statuses page gives: `declined` "Order declined by external payment systems" (the
 * card refused), `expired` "payment not received within the expiry window". `cancelled` (Banxa's "internal
 * risk and compliance alerts") and `refunded` (at the customer's request) say nothing of the next try: `other`.
 */
const DECLINE_KIND: Readonly<Record<string, DeclineKind>> = {
  declined: 'card_refused',
  expired: 'abandoned',
};

/** Banxa order ids are 32 hex characters; the check keeps anything else out of the Get Order path. */
const ORDER_ID = /^[A-Za-z0-9_-]{1,64}$/;

export type BanxaNotice = { kind: 'order'; orderId: string } | { kind: 'ignored'; why: string };

/** Which order an authentic webhook is about, or why it is not about a buy order. */
export function banxaWebhookNotice(rawBody: Buffer): BanxaNotice {
  const body = webhookJson(rawBody, 'Banxa webhook body');
  const record = isObject(body) ? body : {};
  const orderId = record.order_id;
  if (typeof orderId !== 'string') return { kind: 'ignored', why: 'not an order webhook (no order_id)' };
  if (!ORDER_ID.test(orderId)) return { kind: 'ignored', why: `order_id ${orderId.slice(0, 40)} is not a Banxa order id` };
  if (typeof record.order_type === 'string' && record.order_type.toUpperCase() !== 'BUY') {
    return { kind: 'ignored', why: `a ${record.order_type.slice(0, 20)} order` };
  }
  return { kind: 'order', orderId };
}

/**
 * The event an order read with Get Order (https://docs.banxa.com/products/hosted-checkout/openapi/other/retrieve-a-specific-order)
 * stands for: `{"id", "orderType", "status", "walletAddress", "crypto": {"id", "blockchain"}, …}`.
 */
export function banxaOrderEvent(
  order: unknown,
  orderId: string,
): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  if (!isObject(order)) throw new Error('Banxa Get Order answered with something other than an order');
  if (order.id !== orderId) throw new Error(`Banxa Get Order answered for another order than ${orderId}`);
  if (typeof order.orderType === 'string' && order.orderType.toUpperCase() !== 'BUY')
    return { kind: 'ignored', why: `a ${order.orderType.slice(0, 20)} order` };
  const rawStatus = typeof order.status === 'string' ? order.status : '';
  const status = ORDER_STATUS[rawStatus];
  if (!status) return { kind: 'ignored', why: `order status ${rawStatus.slice(0, 40) || '(none)'}` };
  const walletAddress = typeof order.walletAddress === 'string' && order.walletAddress !== '' ? order.walletAddress : undefined;
  const reason = REASON[rawStatus];
  return {
    kind: 'event',
    event: {
      match: { providerReference: orderId, ...(walletAddress ? { walletAddress } : {}) },
      status,
      rawStatus,
      providerReference: orderId,
      ...(reason ? { reason } : {}),
      ...declineKindField(status, DECLINE_KIND[rawStatus]),
      ...(walletAddress ? { destination: { address: walletAddress } } : {}),
      ...(rawStatus === 'refunded' ? { refunded: true } : {}),
    },
  };
}
