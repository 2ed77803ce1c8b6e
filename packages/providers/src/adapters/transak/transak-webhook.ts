import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderWebhookEvent } from '../../provider-contract';
import { paymentEvent, text } from '../../support/webhook-event';

/**
 * Transak's order statuses (https://docs.transak.com/guides/track-order-status, "Order Status
 * Reference"), mapped. `paid` only for COMPLETED ("the crypto is sent successfully"): a paid card
 * can still fail delivery or be refunded, and `paid` cannot be taken back.
 */
export const TRANSAK_ORDER_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  AWAITING_PAYMENT_FROM_USER: 'pending',
  PAYMENT_DONE_MARKED_BY_USER: 'pending',
  PROCESSING: 'pending',
  PENDING_DELIVERY_FROM_TRANSAK: 'pending',
  ON_HOLD_PENDING_DELIVERY_FROM_TRANSAK: 'pending',
  COMPLETED: 'paid',
  CANCELLED: 'failed',
  FAILED: 'failed',
  REFUNDED: 'failed',
  EXPIRED: 'failed',
};

const REASON: Readonly<Record<string, string>> = {
  CANCELLED: 'The order was cancelled at Transak.',
  FAILED: 'Transak could not complete the payment, for example because the card was declined.',
  REFUNDED: 'Transak refunded the payment.',
  EXPIRED: 'The payment was not made at Transak in time.',
};

/**
 * The one failure status whose reason the Order Status Reference states: EXPIRED, "the user failed to make
 * the payment within the timeframe". FAILED ("e.g.: because of the card decline": an example, not the
 * reason), CANCELLED ("Order is cancelled") and REFUNDED give none: `other`.
 */
const DECLINE_KIND: Readonly<Record<string, DeclineKind>> = {
  EXPIRED: 'abandoned',
};

/** The verified claims of a Transak webhook JWT, read as the buy order it is about. */
export function transakWebhookEvent(
  claims: Record<string, unknown>,
): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const order = claims.webhookData;
  if (typeof order !== 'object' || order === null || Array.isArray(order))
    throw new ProviderWebhookError('Transak webhook has no webhookData');
  const { status: rawStatus, partnerOrderId, id, walletAddress, network, cryptoCurrency, isBuyOrSell } = order as Record<string, unknown>;
  if (typeof rawStatus !== 'string' || rawStatus === '') throw new ProviderWebhookError('Transak webhookData has no status');
  if (typeof isBuyOrSell === 'string' && isBuyOrSell.toUpperCase() !== 'BUY')
    return { kind: 'ignored', why: `a ${isBuyOrSell.slice(0, 10)} order` };
  const status = TRANSAK_ORDER_STATUS[rawStatus];
  if (!status) return { kind: 'ignored', why: `order status ${rawStatus.slice(0, 60)}` };
  return paymentEvent({
    status,
    rawStatus,
    paymentId: text(partnerOrderId),
    providerReference: text(id),
    walletAddress: text(walletAddress),
    network: text(network),
    asset: text(cryptoCurrency),
    reason: REASON[rawStatus],
    declineKind: DECLINE_KIND[rawStatus],
    refunded: rawStatus === 'REFUNDED',
  });
}
