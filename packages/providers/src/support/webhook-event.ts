import { declineKindOfReport, type DeclineKind, type ReportedDestination } from '@gateway/domain';
import type { ProviderPaymentStatus, ProviderWebhookEvent, WebhookPaymentMatch } from '../provider-contract';

/** What a webhook parser read of a buy order; each identifier present only when the provider sent it. */
export interface PaymentEventFields {
  status: ProviderPaymentStatus;
  rawStatus: string;
  paymentId?: string | undefined;
  providerReference?: string | undefined;
  /** The wallet the order delivers to: it names the payment (where nothing else does) and is its destination. */
  walletAddress?: string | undefined;
  /** The network and asset the order delivers, in the provider's words, where it reports them. */
  network?: string | undefined;
  asset?: string | undefined;
  reason?: string | undefined;
  /** The kind of the failure's reason, where the provider documents it; a failure without one is `other` (declineKindOfReport). */
  declineKind?: DeclineKind | undefined;
  /** The status is a refund (the money given back). */
  refunded?: boolean | undefined;
  eventId?: string | undefined;
}

/** The event of a webhook about a payment: matched by whichever identifiers it carries, empty ones left out. */
export function paymentEvent({
  status,
  rawStatus,
  paymentId,
  providerReference,
  walletAddress,
  network,
  asset,
  reason,
  declineKind,
  refunded,
  eventId,
}: PaymentEventFields): {
  kind: 'event';
  event: ProviderWebhookEvent;
} {
  return {
    kind: 'event',
    event: {
      match: paymentMatch({ paymentId, providerReference, walletAddress }),
      status,
      rawStatus,
      ...(providerReference ? { providerReference } : {}),
      ...(reason ? { reason } : {}),
      ...declineKindField(status, declineKind),
      ...(walletAddress || network || asset ? { destination: destination({ address: walletAddress, network, asset }) } : {}),
      ...(refunded ? { refunded: true } : {}),
      ...(eventId ? { eventId } : {}),
    },
  };
}

/** The `declineKind` of an event of this status: present exactly when the payment was declined or failed. */
export function declineKindField(status: ProviderPaymentStatus, documented?: DeclineKind): { declineKind?: DeclineKind } {
  const declineKind = declineKindOfReport(status, documented);
  return declineKind ? { declineKind } : {};
}

/** How a webhook names its payment: by whichever identifiers it carries, empty ones left out. */
export function paymentMatch({
  paymentId,
  providerReference,
  walletAddress,
}: {
  paymentId?: string | undefined;
  providerReference?: string | undefined;
  walletAddress?: string | undefined;
}): WebhookPaymentMatch {
  return {
    ...(paymentId ? { paymentId } : {}),
    ...(providerReference ? { providerReference } : {}),
    ...(walletAddress ? { walletAddress } : {}),
  };
}

/** The parts of a destination the provider reported, empty ones left out. */
export function destination(parts: ReportedDestination): ReportedDestination {
  return Object.fromEntries(Object.entries(parts).filter(([, value]) => typeof value === 'string' && value !== '')) as ReportedDestination;
}

/** A field a provider sent as text: a non-empty string, else undefined (an empty one names nothing). */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
