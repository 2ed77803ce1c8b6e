import type { ProviderPaymentStatus } from '@gateway/domain';
import { ProviderWebhookError, type ProviderWebhookEvent } from '../../provider-contract';
import { declineKindField, text } from '../../support/webhook-event';

/**
 * Swipelux's on-ramp webhook payload, the claims of the signed JWT
 * (https://docs.swipelux.com/onramp/integration/server-side/webhooks): `status`
 * (PROCESSING | SUCCESS | FAILED), `orderId` (Swipelux's), `externalId` (ours, when the order had
 * one) and `eventTs`. The newer card-rail page adds `eventType` and an `order` object; neither is
 * needed here.
 */
const STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  PROCESSING: 'pending',
  SUCCESS: 'paid',
  FAILED: 'failed',
};

export function swipeluxWebhookEvent(
  claims: Readonly<Record<string, unknown>>,
): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const providerReference = text(claims.orderId);
  if (!providerReference) throw new ProviderWebhookError('Swipelux webhook names no orderId');
  const rawStatus = text(claims.status) ?? '';
  const status = STATUS[rawStatus];
  if (!status) return { kind: 'ignored', why: `order status ${rawStatus.slice(0, 40) || '(none)'}` };
  const paymentId = text(claims.externalId);
  return {
    kind: 'event',
    event: {
      match: { ...(paymentId ? { paymentId } : {}), providerReference },
      status,
      rawStatus,
      providerReference,
      ...(status === 'failed' ? { reason: 'Swipelux could not complete the purchase' } : {}),
      // FAILED is the one failure status, without a documented reason: `other`.
      ...declineKindField(status),
    },
  };
}
