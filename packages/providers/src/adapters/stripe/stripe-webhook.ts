import type { ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderWebhookEvent } from '../../provider-contract';
import { isObject } from '../../support/session-call';
import { paymentEvent, text } from '../../support/webhook-event';
import { webhookJsonObject } from '../../support/webhook-json';

/**
 * The statuses of a crypto onramp session (https://docs.stripe.com/api/crypto/onramp_sessions/object:
 * initialized, rejected, requires_payment, fulfillment_processing, fulfillment_complete), mapped.
 * `paid` only once fulfilment is complete (the crypto delivered).
 */
export const STRIPE_SESSION_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  initialized: 'pending',
  requires_payment: 'pending',
  fulfillment_processing: 'pending',
  fulfillment_complete: 'paid',
  rejected: 'declined',
};

export const STRIPE_SESSION_EVENT = 'crypto.onramp_session_updated';

/** A Stripe event (already verified) read as the onramp session it carries. */
export function stripeWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const event = webhookJsonObject(rawBody, 'Stripe webhook body');
  const type = typeof event.type === 'string' ? event.type : '';
  if (type !== STRIPE_SESSION_EVENT) return { kind: 'ignored', why: `event ${type.slice(0, 60) || '(none)'}` };
  const session = isObject(event.data) && isObject(event.data.object) ? event.data.object : undefined;
  if (!session || typeof session.status !== 'string') throw new ProviderWebhookError('Stripe event has no onramp session in data.object');
  const status = STRIPE_SESSION_STATUS[session.status];
  if (!status) return { kind: 'ignored', why: `session status ${session.status.slice(0, 60)}` };
  const metadata = isObject(session.metadata) ? session.metadata : {};
  const details = isObject(session.transaction_details) ? session.transaction_details : {};
  return paymentEvent({
    status,
    rawStatus: session.status,
    paymentId: text(metadata.payment_id),
    providerReference: text(session.id),
    walletAddress: text(details.wallet_address),
    network: text(details.destination_network),
    asset: text(details.destination_currency),
    // The session object documents no reason for `rejected`: the decline kind is `other`.
    reason: status === 'declined' ? 'Stripe could not accept this purchase (its checks refused it).' : undefined,
  });
}
