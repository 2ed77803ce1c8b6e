export interface PaymentLinkInput {
  /** The gateway's payment host, e.g. `https://pay.example.com` (a path prefix is kept). */
  paymentUrl: string;
  /** The encrypted `address_in` returned by Create Wallet, not the payout address. */
  addressIn: string;
  /** Decimal string, e.g. `"49.90"`; a string so no float rounding creeps into the price. */
  amount: string;
  provider: string;
  email: string;
  currency: string;
}

/** The `/process-payment.php` link that sends the customer to the provider's checkout. */
export function buildPaymentLink(input: PaymentLinkInput): string {
  const { paymentUrl, addressIn, amount, provider, email, currency } = input;
  const base = new URL(paymentUrl);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new TypeError(`paymentUrl must be an http(s) URL, got ${base.protocol}`);
  }
  if (base.search !== '' || base.hash !== '') {
    throw new TypeError('paymentUrl must be the payment host (and optional path) without a query or fragment');
  }
  const path = `${base.pathname.replace(/\/+$/, '')}/process-payment.php`;
  const query = Object.entries({ address: addressIn, amount, provider, email, currency })
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  return `${base.origin}${path}?${query}`;
}
