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

export interface HostedPaymentLinkInput extends Omit<PaymentLinkInput, 'provider'> {
  /** The shop's name shown on the checkout page. */
  domain?: string;
  /** An https URL of the shop's logo. */
  logo?: string;
  /** The button colour, `#rgb` or `#rrggbb`. */
  button?: string;
}

/** The `/process-payment.php` link that sends the customer to one provider's checkout. */
export function buildPaymentLink(input: PaymentLinkInput): string {
  const { paymentUrl, addressIn, amount, provider, email, currency } = input;
  return linkTo(paymentUrl, 'process-payment.php', { address: addressIn, amount, provider, email, currency });
}

/** The `/pay.php` link: the gateway's checkout page, where the customer chooses among the providers that take the order. */
export function buildHostedPaymentLink(input: HostedPaymentLinkInput): string {
  const { paymentUrl, addressIn, amount, email, currency, domain, logo, button } = input;
  return linkTo(paymentUrl, 'pay.php', { address: addressIn, amount, email, currency, domain, logo, button });
}

/**
 * Each value is percent-encoded exactly once, here: pass `address_in` as Create Wallet answered it
 * (a value encoded twice reaches the gateway as another token, and the customer gets a 400).
 */
function linkTo(paymentUrl: string, page: string, parameters: Record<string, string | undefined>): string {
  const base = new URL(paymentUrl);
  if (base.protocol !== 'https:' && base.protocol !== 'http:') {
    throw new TypeError(`paymentUrl must be an http(s) URL, got ${base.protocol}`);
  }
  if (base.search !== '' || base.hash !== '') {
    throw new TypeError('paymentUrl must be the payment host (and optional path) without a query or fragment');
  }
  const query = Object.entries(parameters)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}/${page}?${query}`;
}
