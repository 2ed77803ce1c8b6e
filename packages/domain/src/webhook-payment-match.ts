import { isHexAddress, isUuid } from './identifiers';

/**
 * Which payment a provider's webhook may update. A provider's webhook updates what the customer and
 * the merchant see about that provider's own payment, and never relabels another provider's
 * payment or another customer's:
 *  - a webhook naming one of our payment ids updates exactly that payment when it is the
 *    provider's, and nothing otherwise (an id of no payment of ours, or another provider's);
 *  - one naming none is matched by the provider's own reference for the order, else by the wallet
 *    it delivers to (Ramp's webhooks carry only its own id and the wallet): the wallet's latest
 *    payment of that provider that the provider has not named yet (no reference recorded). Once a
 *    payment carries the provider's reference, only that reference finds it.
 * The repository applies the lookup (each way one index look-up); the provider filter is its own.
 * The payment found then takes the report only as judgeProviderReport (provider-report-trust) says.
 */
export type WebhookPaymentLookup =
  | { by: 'payment_id'; paymentId: string }
  | { by: 'provider_reference_or_wallet'; providerReference: string | null; walletAddress: string | null }
  | { by: 'nothing' };

/** How a webhook names its payment, as the provider's adapter read it (each only when sent). */
export interface WebhookPaymentNames {
  paymentId?: string | undefined;
  providerReference?: string | undefined;
  walletAddress?: string | undefined;
}

export function webhookPaymentLookup(names: WebhookPaymentNames): WebhookPaymentLookup {
  if (names.paymentId !== undefined && names.paymentId !== '') {
    // An id that cannot be one of ours (another integration's order id on a shared account) names no payment of ours.
    return isUuid(names.paymentId) ? { by: 'payment_id', paymentId: names.paymentId.toLowerCase() } : { by: 'nothing' };
  }
  const providerReference = names.providerReference !== undefined && names.providerReference !== '' ? names.providerReference : null;
  const walletAddress = names.walletAddress !== undefined && isHexAddress(names.walletAddress) ? names.walletAddress.toLowerCase() : null;
  if (providerReference === null && walletAddress === null) return { by: 'nothing' };
  return { by: 'provider_reference_or_wallet', providerReference, walletAddress };
}

/** How the repository found the payment, and the provider reference the payment carries. */
export interface WebhookPaymentFound {
  by: 'payment_id' | 'provider_reference' | 'wallet';
  recordedReference: string | null;
}
