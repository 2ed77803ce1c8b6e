/**
 * When the customer's link (`/payment/<id>/checkout`) may hand out the checkout recorded for a
 * payment again, and when it must ask the provider for a fresh one. Session checkouts expire
 * (Transak and Topper after minutes) and some are accepted once: a reload must neither send the
 * customer to a dead session nor open a second order at the provider while the first is live.
 */

/** A checkout this close to its expiry counts as expired: the customer must still reach and load it. */
export const CHECKOUT_EXPIRY_MARGIN_MS = 20_000;

export interface RecordedCheckoutLife {
  /** null: a URL that does not expire. */
  expiresAt: Date | null;
  singleUse: boolean;
  /** A single-use checkout was handed to a browser or a JSON client already. */
  servedAt: Date | null;
}

export interface PaymentCheckoutState {
  status: 'creating' | 'redirected' | 'checkout_failed';
  /** null while the provider has said nothing about an order for it. */
  providerStatus: string | null;
  /** USDC arrived in the wallet since the payment started. */
  hasDeposit: boolean;
  checkout: RecordedCheckoutLife | null;
}

/**
 * `reuse`: hand out the recorded checkout; `renew`: ask the provider for a fresh one; `receipt`:
 * the provider has an order for this payment already (or USDC arrived), so a new checkout could
 * charge the customer twice: show the receipt; `wait`: the first checkout is still being created.
 */
export type CheckoutLinkAction = 'reuse' | 'renew' | 'receipt' | 'wait';

export function checkoutLinkAction(payment: PaymentCheckoutState, nowMs: number): CheckoutLinkAction {
  if (payment.providerStatus !== null || payment.hasDeposit) return 'receipt';
  if (payment.status === 'creating') return 'wait';
  if (payment.status === 'checkout_failed' || payment.checkout === null) return 'renew';
  return isCheckoutUsable(payment.checkout, nowMs) ? 'reuse' : 'renew';
}

/** Not expired (with the margin), and not a single-use checkout handed out before. */
export function isCheckoutUsable(checkout: RecordedCheckoutLife, nowMs: number): boolean {
  if (checkout.singleUse && checkout.servedAt !== null) return false;
  return checkout.expiresAt === null || checkout.expiresAt.getTime() - CHECKOUT_EXPIRY_MARGIN_MS > nowMs;
}
