import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import type { ProviderWebhookEvent } from '../../provider-contract';
import { webhookJsonObject } from '../../support/webhook-json';
import { isObject } from '../../support/session-call';
import { paymentEvent, text } from '../../support/webhook-event';

/**
 * Topper's webhooks (https://docs.topperpay.com/webhooks and /events/crypto-onramp):
 * `{"name": "order:crypto-onramp:<step>", "id": <event UUID, kept across retries>,
 * "bootstrapTokenId": <the jti of our bootstrap token>, "data": {id, status, destination: {address},
 * error?: {reason}}}`. The event name says more than `data.status` (charged and crypto-sent are
 * both `processing`), so the name is what is mapped and kept as the raw status.
 *
 * `paid` only once Topper reports the order completed, as for MoonPay: a charged order can still
 * fail or be refunded (its own events), and `paid` cannot be taken back.
 */
const ONRAMP_EVENT_PREFIX = 'order:crypto-onramp:';

export const TOPPER_EVENT_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  'order:crypto-onramp:committed': 'pending',
  'order:crypto-onramp:charged': 'pending',
  'order:crypto-onramp:crypto-sent': 'pending',
  'order:crypto-onramp:completed': 'paid',
  'order:crypto-onramp:failed': 'failed',
  'order:crypto-onramp:expired': 'failed',
  'order:crypto-onramp:refund:completed': 'failed',
};

/** Why an order ended without USDC, in the customer's words. */
const REASON: Readonly<Record<string, string>> = {
  'order:crypto-onramp:failed': 'Topper could not complete the order.',
  'order:crypto-onramp:expired': 'The order was abandoned or expired at Topper before payment.',
  'order:crypto-onramp:refund:completed': 'Topper refunded the payment.',
};

/**
 * An expired order is one the customer abandoned or let expire before paying (the crypto-onramp events
 * page); `fraud`, the one `error.reason` Topper documents, is its risk checks refusing the payment.
 */
const DECLINE_KIND: Readonly<Record<string, DeclineKind>> = {
  'order:crypto-onramp:expired': 'abandoned',
};

export function topperWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJsonObject(rawBody, 'Topper webhook body');
  const name = typeof body.name === 'string' ? body.name : '';
  // User events (sign-ups, KYC) and off-ramp orders say nothing about a buy.
  if (!name.startsWith(ONRAMP_EVENT_PREFIX)) return { kind: 'ignored', why: `event ${name.slice(0, 60) || '(none)'}` };
  const status = TOPPER_EVENT_STATUS[name];
  if (!status) return { kind: 'ignored', why: `on-ramp event ${name.slice(0, 60)}` };

  const data = isObject(body.data) ? body.data : {};
  const destination = isObject(data.destination) ? data.destination : {};
  const error = isObject(data.error) ? data.error : {};
  const paymentId = text(body.bootstrapTokenId);
  const providerReference = text(data.id);
  const walletAddress = text(destination.address);
  // `fraud` is the one reason Topper documents; anything else gets the general words.
  const fraud = text(error.reason) === 'fraud';
  const reason = fraud ? 'Topper refused the payment after its fraud checks.' : REASON[name];
  const declineKind = fraud ? 'card_refused' : DECLINE_KIND[name];
  const refunded = name === 'order:crypto-onramp:refund:completed';
  return paymentEvent({ status, rawStatus: name, paymentId, providerReference, walletAddress, reason, declineKind, refunded });
}
