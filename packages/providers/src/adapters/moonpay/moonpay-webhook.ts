import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
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

/**
 * The failure reasons of a buy transaction, as MoonPay documents its `failureReason` (the transaction
 * object of Get Buy transaction, https://dev.moonpay.com/api-reference/widget/getbuytransaction, and
 * the snake_case codes of https://dev.moonpay.com/api-reference/widget/stage-failure-reasons, which the
 * failed stage of `stages` carries), in the kinds that change the next try. `cancelled` (by MoonPay's
 * support or engineers), `refund` (a sell), `failed_testnet_withdrawal`, `error` and `rejected_other`
 * say nothing of the customer's next try: `other`, as is any code MoonPay adds.
 */
export const MOONPAY_FAILURE_KIND: Readonly<Record<string, DeclineKind>> = {
  // "The customer used an unsupported card brand or type."
  card_not_supported: 'card_refused',
  // "The payment was declined by the issuing bank of the customer's credit card."
  payment_authorization_declined: 'card_refused',
  rejected_card: 'card_refused',
  // "The customer reached their daily purchase limit or this transaction would put them over their limit."
  daily_purchase_limit_exceeded: 'over_limit',
  // KYC / proof of address documents rejected, or not completed within 10 hours.
  rejected_kyc: 'identity_failed',
  timeout_kyc_verification: 'identity_failed',
  // The card verification (statement code, micro-authorisation, selfie) not completed within 10 hours.
  timeout_card_verification: 'identity_failed',
  // The customer did not authorise 3-D Secure in time, or did not send the bank transfer within 7 days.
  timeout_3d_secure: 'abandoned',
  timeout_bank_transfer: 'abandoned',
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
  const code = reason ?? failedStageReason(data.stages);
  const declineKind = code === undefined ? undefined : MOONPAY_FAILURE_KIND[code];
  return paymentEvent({ status, rawStatus, paymentId, providerReference, walletAddress, reason, declineKind });
}

/** The failureReason of the one stage that failed, where the transaction carries `stages`. */
function failedStageReason(stages: unknown): string | undefined {
  if (!Array.isArray(stages)) return undefined;
  const failed = stages.find(
    (stage) => typeof stage === 'object' && stage !== null && (stage as Record<string, unknown>).status === 'failed',
  );
  return failed ? text((failed as Record<string, unknown>).failureReason) : undefined;
}
