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

/** Why the second chance was not taken, on the checkout-failed page; `name`: the provider chosen, when it is one. */
export function refusedView(
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
  if (refusal === 'closed') {
    const heading = 'This payment cannot be retried';
    return page(
      heading,
      heading,
      'USDC arrived for this order, or its provider has not given up on the payment: paying again could charge you twice. ' +
        'Follow the payment on its receipt.',
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
