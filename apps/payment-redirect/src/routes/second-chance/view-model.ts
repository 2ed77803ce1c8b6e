import type { Continuation, RetryRefusal } from '../../services/checkout/second-chance-service';
import type { CheckoutFailedView } from '../shared/checkout-failed-page';

/** The page that goes on to the new payment's checkout. */
export function continueView(continuation: Extract<Continuation, { kind: 'continue' }>) {
  return {
    title: `Continue to ${continuation.providerName}`,
    providerName: continuation.providerName,
    amount: `${continuation.amount} ${continuation.currency}`,
    href: `/payment/${continuation.paymentId}/checkout`,
  };
}

/** What a receipt's form started: another provider for the same order, or the rest of an underpaid one. */
export type NewAttempt = 'second chance' | 'rest';

/** Why the second chance or the rest was not taken, on the checkout-failed page; `name`: the provider chosen, when it is one. */
export function refusedView(
  what: NewAttempt,
  refusal: Exclude<RetryRefusal, 'no_payment' | 'key_required'>,
  name: string | undefined,
  receipt: string,
): CheckoutFailedView {
  const page = (title: string, heading: string, intro: string): CheckoutFailedView => ({
    title,
    kind: 'refused',
    heading,
    intro,
    chooseHref: receipt,
  });
  if (refusal === 'exhausted') {
    const heading = 'This order cannot be retried again';
    return page(
      heading,
      heading,
      'This order has been tried too many times with other providers. To pay, go back to the shop and start again; your ' +
        'receipt shows what happened to each attempt.',
    );
  }
  if (refusal === 'closed' && what === 'rest') {
    const heading = 'Nothing is missing from this order';
    return page(
      heading,
      heading,
      'This order is not short (anymore): nothing is left to pay here, and paying again would charge you for more than the ' +
        'order. Follow the payment on its receipt.',
    );
  }
  if (refusal === 'closed') {
    const heading = 'This payment cannot be retried';
    return page(
      heading,
      heading,
      'USDC arrived for this order, or its provider has not given up on the payment: paying again could charge you twice. ' +
        'Follow the payment on its receipt.',
    );
  }
  if (what === 'rest') {
    return page(
      'Choose another provider',
      name ? `${name} cannot take the rest of this order` : 'No such payment provider',
      `${name ?? 'The provider chosen'} does not take the rest of this order (its currency or minimum). Choose one of the ` +
        'providers your receipt lists for the rest.',
    );
  }
  return page(
    'Choose another provider',
    name ? `${name} cannot take this order` : 'No such payment provider',
    name
      ? `${name} does not accept this order (its currency or amount), or it is the provider that just declined it. Choose one of ` +
          `the providers your receipt lists.`
      : 'The provider chosen is not one this checkout offers. Choose one of the providers your receipt lists.',
  );
}
