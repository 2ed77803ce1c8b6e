import type { ProviderPaymentStatus, ProviderWebhookEvent } from '../provider-contract';

/** What a webhook parser read of a buy order; each identifier present only when the provider sent it. */
export interface PaymentEventFields {
  status: ProviderPaymentStatus;
  rawStatus: string;
  paymentId?: string | undefined;
  providerReference?: string | undefined;
  walletAddress?: string | undefined;
  reason?: string | undefined;
}

/** The event of a webhook about a payment: matched by whichever identifiers it carries, empty ones left out. */
export function paymentEvent({ status, rawStatus, paymentId, providerReference, walletAddress, reason }: PaymentEventFields): {
  kind: 'event';
  event: ProviderWebhookEvent;
} {
  return {
    kind: 'event',
    event: {
      match: {
        ...(paymentId ? { paymentId } : {}),
        ...(providerReference ? { providerReference } : {}),
        ...(walletAddress ? { walletAddress } : {}),
      },
      status,
      rawStatus,
      ...(providerReference ? { providerReference } : {}),
      ...(reason ? { reason } : {}),
    },
  };
}
