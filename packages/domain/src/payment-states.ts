import type { StatusMove } from './state-moves';

/**
 * The life of a Process Payment call (a `payments` row), as data like the settlement machines:
 * the row is written before the provider is asked for a checkout, so a checkout that fails or
 * times out leaves a payment that says so, never a half-recorded one and never a lost one.
 */
export const PAYMENT_STATUSES = ['creating', 'redirected', 'checkout_failed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_MOVES = {
  recordCheckout: {
    from: ['creating'],
    to: 'redirected',
    requires: "the provider's checkout URL (and its reference for the order, when it gives one) stored with it",
  },
  failCheckout: {
    from: ['creating'],
    to: 'checkout_failed',
    requires: 'the provider refused the checkout, could not be reached or did not answer in time; the reason stored with it',
  },
  renewCheckout: {
    from: ['redirected', 'checkout_failed'],
    to: 'redirected',
    requires: "the customer's link found no usable checkout (expired, or single-use and handed out) and the provider gave a fresh one",
  },
} as const satisfies Record<string, StatusMove<PaymentStatus>>;
