import { GatewayError } from './errors';

/**
 * How far one order goes: a customer makes a handful of attempts (a declined card, another
 * provider); anyone holding the order's address_in (it is in every checkout link) or a payment's
 * key could otherwise record attempts without end, each one more row every read of the order walks.
 */

/** Payments recorded per wallet (one order): Process Payment, the hosted checkout's links and second chances alike. */
export const DEFAULT_ORDER_ATTEMPTS_MAX = 20;

/** Second chances taken from one payment. */
export const DEFAULT_SECOND_CHANCES_MAX = 5;

/** Whether a payment that gave `taken` second chances may give another (the repository claims it atomically by the same rule). */
export function secondChanceLeft(taken: number, max: number): boolean {
  return taken < max;
}

export function orderAttemptsExhaustedError(max: number): GatewayError {
  return new GatewayError(
    'order_attempts_exhausted',
    `this order has had its ${max} payment attempts, the most one order may have; to pay, go back to the shop for a new payment ` +
      'link (a new order)',
    'address',
  );
}

export function paymentKeyRequiredError(): GatewayError {
  return new GatewayError(
    'payment_key_required',
    'this payment can be continued only in the browser it was started in (or with the checkout_link Process Payment returned); ' +
      'open the payment link the shop gave you',
  );
}

export function crossSiteRequestError(): GatewayError {
  return new GatewayError(
    'cross_site_request',
    "this form is accepted only from this gateway's own receipt page; open your receipt and choose again",
  );
}

/** `unknown`: nothing says where it comes from (not a current browser, or one that hides it): the payment's key decides alone. */
export type PostOrigin = 'same_origin' | 'unknown' | 'cross_site';

/**
 * Where a POST comes from, by the headers browsers set themselves: Sec-Fetch-Site, when sent, must
 * say same-origin, and Origin, when it names one, must be the gateway's own (`ownOrigin`, from
 * PUBLIC_URL). `Origin: null` names none: browsers send it for a form posted from a page whose
 * Referrer-Policy is no-referrer, which every page of the payment host has (measured with Chromium
 * on the receipt's own form), as well as from sandboxed frames; Sec-Fetch-Site still tells those
 * apart. A request with neither (curl, a server, an old browser) still needs the payment's key.
 */
export function postOrigin(headers: { origin?: string; secFetchSite?: string }, ownOrigin: string): PostOrigin {
  const { secFetchSite } = headers;
  const origin = headers.origin === 'null' ? undefined : headers.origin;
  if (secFetchSite !== undefined && secFetchSite.toLowerCase() !== 'same-origin') return 'cross_site';
  if (origin !== undefined && origin.toLowerCase() !== ownOrigin.toLowerCase()) return 'cross_site';
  return secFetchSite === undefined && origin === undefined ? 'unknown' : 'same_origin';
}
