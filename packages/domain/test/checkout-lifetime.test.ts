import { CHECKOUT_EXPIRY_MARGIN_MS, checkoutLinkAction, type PaymentCheckoutState } from '../src/checkout-lifetime';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const redirected = (checkout: PaymentCheckoutState['checkout']): PaymentCheckoutState => ({
  status: 'redirected',
  providerStatus: null,
  hasDeposit: false,
  checkout,
});

describe('checkoutLinkAction', () => {
  it('reuses a URL that never expires, on every reload', () => {
    expect(checkoutLinkAction(redirected({ expiresAt: null, singleUse: false, servedAt: new Date(NOW - 1000) }), NOW)).toBe('reuse');
  });

  it('reuses a live session until the margin before its expiry, then renews it', () => {
    const expiresAt = new Date(NOW + CHECKOUT_EXPIRY_MARGIN_MS + 1);
    expect(checkoutLinkAction(redirected({ expiresAt, singleUse: false, servedAt: null }), NOW)).toBe('reuse');
    expect(checkoutLinkAction(redirected({ expiresAt, singleUse: false, servedAt: null }), NOW + 1)).toBe('renew');
    expect(checkoutLinkAction(redirected({ expiresAt: new Date(NOW - 1), singleUse: false, servedAt: null }), NOW)).toBe('renew');
  });

  it('hands a single-use session out once: a live one not yet served is reused, a served one renewed', () => {
    const expiresAt = new Date(NOW + 300_000);
    expect(checkoutLinkAction(redirected({ expiresAt, singleUse: true, servedAt: null }), NOW)).toBe('reuse');
    expect(checkoutLinkAction(redirected({ expiresAt, singleUse: true, servedAt: new Date(NOW - 5000) }), NOW)).toBe('renew');
  });

  it('renews an expired single-use session even when it was never handed out: being unserved does not make a dead session live', () => {
    const neverServed = { singleUse: true, servedAt: null };
    expect(checkoutLinkAction(redirected({ ...neverServed, expiresAt: new Date(NOW - 1) }), NOW)).toBe('renew');
    // Within the margin of its expiry counts as expired, as for any session.
    expect(checkoutLinkAction(redirected({ ...neverServed, expiresAt: new Date(NOW + CHECKOUT_EXPIRY_MARGIN_MS) }), NOW)).toBe('renew');
  });

  it('opens no second checkout once the provider has an order for the payment or USDC arrived', () => {
    const expired = { expiresAt: new Date(NOW - 1), singleUse: true, servedAt: new Date(NOW - 60_000) };
    expect(checkoutLinkAction({ ...redirected(expired), providerStatus: 'pending' }, NOW)).toBe('receipt');
    expect(checkoutLinkAction({ ...redirected(expired), providerStatus: 'declined' }, NOW)).toBe('receipt');
    expect(checkoutLinkAction({ ...redirected(expired), hasDeposit: true }, NOW)).toBe('receipt');
  });

  it('retries a checkout that failed, and waits for one being created', () => {
    expect(checkoutLinkAction({ status: 'checkout_failed', providerStatus: null, hasDeposit: false, checkout: null }, NOW)).toBe('renew');
    expect(checkoutLinkAction({ status: 'creating', providerStatus: null, hasDeposit: false, checkout: null }, NOW)).toBe('wait');
    // Whatever checkout is on record, a payment whose checkout failed asks the provider again.
    const live = { expiresAt: new Date(NOW + 3_600_000), singleUse: false, servedAt: null };
    expect(checkoutLinkAction({ status: 'checkout_failed', providerStatus: null, hasDeposit: false, checkout: live }, NOW)).toBe('renew');
  });
});
