import type { CreatedCheckout } from '../../src/provider-contract';

/** A redirect checkout as such; fails the test for a form checkout. */
export function redirectCheckout(checkout: CreatedCheckout): Extract<CreatedCheckout, { kind: 'redirect' }> {
  if (checkout.kind !== 'redirect') throw new Error(`expected a redirect checkout, got a ${checkout.kind} checkout`);
  return checkout;
}

/**
 * Where a checkout sends the browser, as one URL: a redirect's URL, or a form's action with its
 * fields as query parameters (what the form would post, read the same way).
 */
export function checkoutLocation(checkout: CreatedCheckout): URL {
  if (checkout.kind === 'redirect') return new URL(checkout.url);
  const url = new URL(checkout.action);
  for (const [name, value] of Object.entries(checkout.fields)) url.searchParams.append(name, value);
  return url;
}
