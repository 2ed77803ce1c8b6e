import type { ProviderPaymentStatus } from '@gateway/domain';
import type { ProviderWebhookEvent } from '../../provider-contract';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJsonObject } from '../../support/webhook-json';
import { alchemyPaySignContent } from './alchemypay-sign';

/**
 * Alchemy Pay's webhooks (https://alchemypay.readme.io/docs/webhook): a flat JSON object of
 * strings — appId, orderNo, merchantOrderNo, crypto, network, address, status, message,
 * newSignature, … On-ramp statuses are words (https://alchemypay.readme.io/docs/list-of-order-status and
 * https://alchemypay.readme.io/docs/order-status); webhooks are sent for PAY_SUCCESS, PAY_FAIL and FINISHED, the rest
 * are mapped in case they come. PAY_SUCCESS ("payment success") and TRANSFER ("transferring the token") are the card
 * charged, not the USDC sent: `charged`; only FINISHED ("order completed", with txHash) is `paid`.
 * Off-ramp webhooks carry digits ("1".."7") and are not about a buy order.
 */
const ON_RAMP_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  PENDING: 'pending',
  // The card payment succeeded; the USDC transfer follows (and a refund may still come instead).
  PAY_SUCCESS: 'charged',
  TRANSFER: 'charged',
  FINISHED: 'paid',
  PAY_FAIL: 'declined',
  CANCEL: 'failed',
  RISK_CONTROL: 'failed',
  REFUNDED: 'failed',
  INVALID_ADDRESS: 'failed',
};

/** Left out of the signed content: the deprecated SHA-1 `signature` and the signature itself. */
const UNSIGNED_FIELDS = new Set(['signature', 'newSignature']);

export type AlchemyPayWebhookBody = Readonly<Record<string, unknown>>;

export function parseAlchemyPayWebhook(rawBody: Buffer): AlchemyPayWebhookBody {
  return webhookJsonObject(rawBody, 'Alchemy Pay webhook body');
}

/** The webhook-signature page's content: its fields less `signature` and `newSignature`, signed as an API call is. */
export function alchemyPayWebhookSignContent(timestamp: string, requestPath: string, body: AlchemyPayWebhookBody): string {
  const signed = Object.fromEntries(Object.entries(body).filter(([name]) => !UNSIGNED_FIELDS.has(name)));
  return alchemyPaySignContent(timestamp, 'POST', requestPath, signed);
}

export function alchemyPayWebhookEvent(
  body: AlchemyPayWebhookBody,
): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const rawStatus = text(body.status) ?? '';
  const status = ON_RAMP_STATUS[rawStatus];
  if (!status) return { kind: 'ignored', why: `not an on-ramp order status: ${rawStatus.slice(0, 40) || '(none)'}` };
  const paymentId = text(body.merchantOrderNo);
  const providerReference = text(body.orderNo);
  const walletAddress = text(body.address);
  // `message` says why a card payment failed; failed notifications may add returnMsg. Both are free text, and the
  // order-status pages give PAY_FAIL, CANCEL, RISK_CONTROL and the rest no reason code: the decline kind is `other`.
  const reason = status === 'declined' || status === 'failed' ? (text(body.message) ?? text(body.returnMsg)) : undefined;
  return paymentEvent({ status, rawStatus, paymentId, providerReference, walletAddress, reason, refunded: rawStatus === 'REFUNDED' });
}
