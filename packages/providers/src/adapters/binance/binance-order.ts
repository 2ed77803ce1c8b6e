import type { ProviderPaymentStatus } from '@gateway/domain';
import type { ProviderWebhookEvent } from '../../provider-contract';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJsonObject } from '../../support/webhook-json';

/**
 * Binance Pay Onchain's order statuses (developers.binance.com/en/docs/products/connect-2.0/basics/
 * 7.order-status), for a buy order. 2 is the crypto bought and held in the customer's Binance
 * wallet, not sent: the card is charged, `charged`, as are 10, 11 and 15 (the withdrawal or swap
 * under way). 20 is the purchase and the withdrawal both done: `paid`. The final failures of a buy:
 * 97 ON_RAMP_FAILED (the card purchase failed: `declined`), 96 WITHDRAW_ABANDONED, 98 WITHDRAW_FAILED
 * and 99 FAILED (`failed`); each lets the customer try again. None says why: the decline kind is `other`. 93 and 94 (a swap abandoned or failed)
 * and 95 (an off-ramp) are not for a USDC buy. Any other code says nothing yet (the chain decides).
 */
export const BINANCE_ORDER_STATUS: Readonly<Record<number, { name: string; status: ProviderPaymentStatus; reason?: string }>> = {
  0: { name: 'INIT', status: 'pending' },
  1: { name: 'ON_RAMP_PROCESSING', status: 'pending' },
  2: { name: 'ON_RAMP_COMPLETED', status: 'charged' },
  10: { name: 'WITHDRAW_INIT', status: 'charged' },
  11: { name: 'WITHDRAW_PROCESSING', status: 'charged' },
  15: { name: 'SWAP_PROCESSING', status: 'charged' },
  20: { name: 'COMPLETED', status: 'paid' },
  96: {
    name: 'WITHDRAW_ABANDONED',
    status: 'failed',
    reason: 'Binance did not send the USDC: the purchase is in your Binance account.',
  },
  97: { name: 'ON_RAMP_FAILED', status: 'declined', reason: 'Binance could not take the card payment.' },
  98: {
    name: 'WITHDRAW_FAILED',
    status: 'failed',
    reason: 'Binance could not send the USDC: the purchase is in your Binance account.',
  },
  99: { name: 'FAILED', status: 'failed', reason: 'Binance could not complete this purchase.' },
};

/** Binance's order event type for an on-ramp order's status change. */
export const BINANCE_ORDER_EVENT = 'connect_order_event';

/**
 * Our externalOrderId for a checkout, letters and digits only (Binance's rule: "without special
 * characters"): the payment id without its dashes, then for a fresh checkout `R` and its attempt
 * number (`R` is not a hex digit, so the id stays unique and names its payment).
 */
export function binanceOrderId(idempotencyKey: string): string {
  return idempotencyKey.replace(/-/g, '').replace(':', 'R');
}

// `_<n>`: a fresh checkout's id before the letters-and-digits rule was kept; its orders still name their payment.
const ORDER_ID = /^([0-9a-fA-F]{8})([0-9a-fA-F]{4})([0-9a-fA-F]{4})([0-9a-fA-F]{4})([0-9a-fA-F]{12})(?:[R_]\d{1,6})?$/;

/** The payment id an externalOrderId we sent names; undefined for anything else. */
export function paymentIdOfBinanceOrder(orderId: unknown): string | undefined {
  const parts = typeof orderId === 'string' ? ORDER_ID.exec(orderId) : null;
  return parts ? parts.slice(1, 6).join('-').toLowerCase() : undefined;
}

/** An order (a webhook body, or the order look-up's data) read into the gateway's words; undefined for a code not mapped. */
export function binanceOrderEvent(order: Record<string, unknown>): ProviderWebhookEvent | undefined {
  const code = typeof order.status === 'number' ? order.status : Number.NaN;
  const mapped = BINANCE_ORDER_STATUS[code];
  if (!mapped) return undefined;
  const orderId = typeof order.externalOrderId === 'string' ? order.externalOrderId : undefined;
  return paymentEvent({
    status: mapped.status,
    rawStatus: `${code} ${mapped.name}`,
    paymentId: paymentIdOfBinanceOrder(orderId),
    providerReference: orderId,
    // The pre-order's destination, where the order reports it back.
    walletAddress: text(order.address),
    network: text(order.network),
    asset: text(order.cryptoCurrency),
    reason: mapped.reason,
  }).event;
}

/** A verified webhook body: an on-ramp (buy) order's status change; other events and order types are ignored. */
export function binanceWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJsonObject(rawBody, 'Binance webhook body');
  const type = typeof body.webhookEventType === 'string' ? body.webhookEventType : '';
  if (type !== BINANCE_ORDER_EVENT) return { kind: 'ignored', why: `event ${type.slice(0, 60) || '(none)'}` };
  if (body.type !== 1) return { kind: 'ignored', why: 'not a buy order' };
  const event = binanceOrderEvent(body);
  return event ? { kind: 'event', event } : { kind: 'ignored', why: `order status ${String(body.status).slice(0, 20)}` };
}
