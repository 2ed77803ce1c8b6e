import type { ProviderPaymentStatus } from './payment-progress';
import type { AvailableProviderOption, ProviderOption } from './provider-options';

/**
 * A second chance inside the same checkout: when the provider gave up on a payment (the card was
 * declined; the payment failed, was cancelled or expired) and no USDC arrived, the customer may pay
 * the same order into the same temporary wallet through another provider, without going back to
 * the shop. Deposits into the wallet are one flow whichever attempt delivered them.
 */

/** The provider gave up on this payment and no USDC arrived: another provider may be tried. */
export function secondChanceOpen(providerStatus: ProviderPaymentStatus | null, usdcArrived: boolean): boolean {
  if (usdcArrived) return false;
  switch (providerStatus) {
    case 'declined':
    case 'failed':
      return true;
    case null:
    case 'pending':
    // The card was charged: a second provider would charge the customer twice for one order.
    case 'charged':
    case 'paid':
      return false;
    default:
      return unhandled(providerStatus);
  }
}

/**
 * The providers offered for the second chance: those the hosted checkout would list as available
 * for this order (`providerOptions`, the same currency and minimum rules as Process Payment), the
 * one that just gave up left out. Each keeps the charge it would be asked for (USD-only providers
 * the order converted to USD).
 */
export function secondChanceProviders(options: readonly ProviderOption[], failedProvider: string): AvailableProviderOption[] {
  return options.filter(
    (option): option is AvailableProviderOption => option.status === 'available' && option.provider.id !== failedProvider,
  );
}

/** A provider's reason as a sentence of its own: trimmed, capitalised, a full stop added only when it has no closing mark. */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]["')\]]?$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

function unhandled(status: never): never {
  throw new Error(`provider status ${String(status)} has no second-chance rule`);
}
