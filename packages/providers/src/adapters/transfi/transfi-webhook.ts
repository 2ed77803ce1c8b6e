import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderWebhookEvent } from '../../provider-contract';
import { isObject } from '../../support/session-call';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJsonObject } from '../../support/webhook-json';

/**
 * The statuses of a TransFi ramp (buy) order, from docs.transfi.com/docs/understanding-the-workflow-of-onramp-transaction,
 * …/understanding-the-workflow-of-onramp and …/webhook-events-onramp, mapped. `charged` from the moment
 * TransFi has the fiat (fund_settled) until it says the crypto reached the wallet (asset_settled, `paid`).
 */
export const TRANSFI_ORDER_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  initiated: 'pending',
  fund_processing: 'pending',
  fund_settled: 'charged',
  asset_processing: 'charged',
  asset_deposited: 'charged',
  asset_settled: 'paid',
  fund_failed: 'declined',
  asset_settle_failed: 'failed',
  asset_deposit_failed: 'failed',
  expired: 'failed',
};

const REASONS: Readonly<Record<string, string>> = {
  fund_failed: 'TransFi did not receive the payment: the bank declined the card, or TransFi’s checks refused it.',
  asset_settle_failed: 'TransFi took the payment but could not send the USDC.',
  asset_deposit_failed: 'TransFi took the payment but could not send the USDC.',
  expired: 'The TransFi order expired before it was paid.',
};

/**
 * `expired`: "User hadn't completed the payment in 12 hours" (understanding-the-workflow-of-onramp-transaction).
 * fund_failed mixes an incorrect pay-in with compliance checks, and the asset failures are TransFi's: `other`.
 */
const DECLINE_KIND: Readonly<Record<string, DeclineKind>> = {
  expired: 'abandoned',
};

/** A TransFi order (a webhook's `order`, or the `data` of Get Order) read as the event of our payment. */
export function transfiOrderEvent(
  order: Record<string, unknown>,
  rawStatus: string,
): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const status = TRANSFI_ORDER_STATUS[rawStatus];
  if (!status) return { kind: 'ignored', why: `order status ${rawStatus.slice(0, 60)}` };
  const context = isObject(order.partnerContext) ? order.partnerContext : {};
  return paymentEvent({
    status,
    rawStatus,
    paymentId: text(context.paymentId),
    providerReference: text(order.orderId),
    walletAddress: text(order.walletAddress),
    // The webhook's order names its ticker (USDCPOLYGON: the asset and its network), Get Order its withdrawCurrency.
    asset:
      typeof order.cryptoTicker === 'string'
        ? order.cryptoTicker
        : typeof order.withdrawCurrency === 'string'
          ? order.withdrawCurrency
          : undefined,
    reason: REASONS[rawStatus],
    declineKind: DECLINE_KIND[rawStatus],
  });
}

/** A TransFi webhook (already verified): an order event is read, a user (KYC) event or a sell order is ignored. */
export function transfiWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJsonObject(rawBody, 'TransFi webhook body');
  const entityType = typeof body.entityType === 'string' ? body.entityType : '';
  if (entityType !== 'order') return { kind: 'ignored', why: `entity ${entityType.slice(0, 60) || '(none)'}` };
  if (typeof body.status !== 'string' || !isObject(body.order))
    throw new ProviderWebhookError('TransFi order event has no status or order');
  const order = body.order;
  if (typeof order.type === 'string' && order.type !== 'buy') return { kind: 'ignored', why: `order type ${order.type.slice(0, 60)}` };
  const orderId = typeof order.orderId === 'string' ? order.orderId : typeof body.entityId === 'string' ? body.entityId : undefined;
  return transfiOrderEvent({ ...order, orderId }, body.status);
}
