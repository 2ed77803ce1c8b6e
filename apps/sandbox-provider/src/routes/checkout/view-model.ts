import { formatUsdc } from '@gateway/domain';
import type { CheckoutOrder } from '../../services/checkout-link';
import { TEST_CARDS, type CardErrors, type CardInput } from '../../services/card-check';
import type { SandboxOrderRow } from '../../services/order-repository';

export interface CheckoutForm {
  values?: Partial<CardInput>;
  errors?: CardErrors;
  /** Why the last attempt was refused, in the customer's words. */
  notice?: string;
}

export function checkoutPage(order: CheckoutOrder, feeBps: number, form: CheckoutForm = {}): object {
  return {
    amount: order.amount.text,
    currency: order.currency,
    providerName: `${order.provider.displayName} (simulated)`,
    walletAddress: order.walletAddress,
    email: order.email,
    feePercent: formatBasisPoints(feeBps),
    feeUsdc: formatUsdc(order.quote.feeUsdc),
    netUsdc: formatUsdc(order.quote.netUsdc),
    hidden: order.signed,
    // Card number and CVC are never sent back: a page can end up in a cache, a log or a screenshot.
    values: { name: form.values?.name, expiry: form.values?.expiry },
    errors: form.errors ?? {},
    notice: form.notice,
    testCards: TEST_CARDS,
  };
}

export interface NoticePage {
  heading: string;
  message: string;
  tone: 'ok' | 'warn' | 'bad';
  /** Hidden fields of a form that posts the order again (to finish it), without card details. */
  resume?: CheckoutOrder['signed'];
  returnUrl?: string;
  /** Takes the customer on to this page by itself (the gateway's receipt). */
  redirectTo?: string;
}

export const linkProblemPages: Record<'invalid' | 'expired', NoticePage & { status: number }> = {
  invalid: {
    status: 400,
    heading: 'This payment link is not valid',
    message:
      'This payment link is not valid: it is incomplete or was changed after the shop created it. Go back to the shop and start the ' +
      'payment again.',
    tone: 'bad',
  },
  expired: {
    status: 410,
    heading: 'This payment link has expired',
    message: 'This payment link has expired; go back to the shop and start again.',
    tone: 'bad',
  },
};

/** For a link whose order this sandbox already accepted a card for. */
export function orderStatusPage(order: CheckoutOrder, row: Pick<SandboxOrderRow, 'status'>): NoticePage {
  if (row.status === 'paid') {
    return {
      heading: 'Already paid',
      message:
        `This order of ${order.amount.text} ${order.currency} has already been paid, and its test USDC sent. Nothing more is ` + `needed.`,
      tone: 'ok',
      returnUrl: order.returnUrl,
    };
  }
  return paymentUnderWayPage(order);
}

/**
 * The card was accepted and the USDC sent: the customer goes on to the gateway's receipt. Not a
 * 303 from the form post: CSP `form-action 'self'` would stop that redirect at the gateway's origin.
 */
export function paymentApprovedPage(order: CheckoutOrder, usdcSent: bigint): NoticePage {
  // The short test card's order: say plainly that less than the estimate was sent.
  const sent = usdcSent < order.quote.netUsdc ? `only ${formatUsdc(usdcSent)} USDC sent` : `${formatUsdc(usdcSent)} USDC sent`;
  return {
    heading: 'Payment approved',
    message: `${order.amount.text} ${order.currency} paid (test mode) and ${sent}. Taking you back to your receipt…`,
    tone: 'ok',
    returnUrl: order.returnUrl,
    redirectTo: order.returnUrl,
  };
}

export function paymentUnderWayPage(order: CheckoutOrder): NoticePage {
  return {
    heading: 'Payment in progress',
    message: 'Your card was accepted and the test USDC is on its way. It usually arrives within seconds.',
    tone: 'warn',
    resume: order.signed,
    returnUrl: order.returnUrl,
  };
}

/** 150 → "1.5%", without floating point. */
function formatBasisPoints(bps: number): string {
  const fraction = String(bps % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return `${Math.trunc(bps / 100)}${fraction ? `.${fraction}` : ''}%`;
}
