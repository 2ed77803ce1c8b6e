import type { ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderWebhookEvent } from '../../provider-contract';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJson } from '../../support/webhook-json';

/**
 * MoonPay's transaction webhooks (https://dev.moonpay.com/reference/reference-webhooks-buy):
 * `{"type": "transaction_created" | "transaction_updated" | "transaction_failed", "data": {id,
 * status, externalTransactionId, walletAddress, failureReason, …}}`.
 */
const STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  waitingPayment: 'pending',
  pending: 'pending',
  waitingAuthorization: 'pending',
  completed: 'paid',
  failed: 'failed',
};

export function moonpayWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJson(rawBody, 'MoonPay webhook body') as { type?: unknown; data?: unknown };
  if (typeof body !== 'object' || body === null) throw new ProviderWebhookError('MoonPay webhook body is not a JSON object');
  const data = (typeof body.data === 'object' && body.data !== null ? body.data : {}) as Record<string, unknown>;
  if (typeof body.type !== 'string' || !body.type.startsWith('transaction_'))
    return { kind: 'ignored', why: `event type ${String(body.type).slice(0, 40)}` };
  return moonpayTransactionEvent(data);
}

/** A buy transaction object (a webhook's `data`, or an answer of MoonPay's transaction look-up) read into an event. */
export function moonpayTransactionEvent(
  data: Record<string, unknown>,
): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const rawStatus = typeof data.status === 'string' ? data.status : '';
  const status = STATUS[rawStatus];
  if (!status) return { kind: 'ignored', why: `transaction status ${rawStatus.slice(0, 40) || '(none)'}` };
  const paymentId = text(data.externalTransactionId);
  const providerReference = text(data.id);
  const walletAddress = text(data.walletAddress);
  const reason = text(data.failureReason);
  return paymentEvent({ status, rawStatus, paymentId, providerReference, walletAddress, reason });
}
