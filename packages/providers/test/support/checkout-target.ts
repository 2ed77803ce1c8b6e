import type { CreatedCheckout } from '../../src/provider-contract';

/** A redirect checkout as such; fails the test for a form checkout. */
export function redirectCheckout(checkout: CreatedCheckout): Extract<CreatedCheckout, { kind: 'redirect' }> {
  if (checkout.kind !== 'redirect') throw new Error(`expected a redirect checkout, got a ${checkout.kind} checkout`);
  return checkout;
}
