import type { ProviderPaymentStatus } from './payment-progress';

/**
 * Why a provider gave up on a payment, in the few kinds that change what a customer should try next
 * (issue 32: the second chance is ordered by them). An adapter maps the failure reasons its provider
 * documents to one of these; a reason it does not document, or a report with none, is `other`.
 */
export const DECLINE_KINDS = [
  /** The card's issuer or the provider's risk check refused the card. */
  'card_refused',
  /** The customer did not pass (or did not finish) the provider's identity checks. */
  'identity_failed',
  /** The order is over a limit of the provider's (per purchase, per day, for the customer's verification level). */
  'over_limit',
  /** The provider does not serve the customer's country or region. */
  'country_unserved',
  /** The customer left, cancelled, or let the provider's order expire. */
  'abandoned',
  'other',
] as const;
export type DeclineKind = (typeof DECLINE_KINDS)[number];

export function isDeclineKind(value: string): value is DeclineKind {
  return (DECLINE_KINDS as readonly string[]).includes(value);
}

/**
 * The kind a provider's report carries into the gateway: none unless the payment was declined or failed;
 * a failure whose reason the provider does not document (or does not give) is `other`, never a guess.
 * Adapters pass the kind their provider's documented reason maps to, where there is one.
 */
export function declineKindOfReport(status: ProviderPaymentStatus, documented?: DeclineKind): DeclineKind | undefined {
  if (status !== 'declined' && status !== 'failed') return undefined;
  return documented ?? 'other';
}
