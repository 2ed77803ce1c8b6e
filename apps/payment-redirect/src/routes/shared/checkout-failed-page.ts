import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordOutcome } from '@gateway/http';
import type { CheckoutFailedError } from '../../services/checkout/provider-checkout';

/** What the customer is offered on the page: why, and the ways on that make sense where they came from. */
export interface NextSteps {
  intro: string;
  /** The same request again: only where trying again may help. */
  retryHref?: string;
  /** Where to choose another provider for the same order. */
  chooseHref?: string;
}

/** The checkout-failed page: no checkout was opened, and what the customer can do instead. */
export interface CheckoutFailedView extends NextSteps {
  title: string;
  /** `refused`: not this provider, not this order; `unavailable`: the provider did not answer. */
  kind: 'refused' | 'unavailable';
  heading: string;
  /** The provider the retry button names. */
  providerName?: string;
}

/** The one builder of the checkout-failed page (Process Payment, the customer's link, the second chance). */
export function sendCheckoutFailedPage(reply: FastifyReply, view: CheckoutFailedView, status: number) {
  return reply.page('checkout-failed', view, status);
}

/**
 * The provider gave no checkout: logged with its code, Retry-After when the provider said when,
 * and the page with `next`.
 */
export function sendCheckoutFailed(request: FastifyRequest, reply: FastifyReply, error: CheckoutFailedError, next: NextSteps) {
  recordOutcome(request, 'provider gave no checkout', { paymentId: error.paymentId, code: error.code });
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  const heading =
    error.kind === 'unavailable'
      ? `${error.providerName} is not answering right now`
      : `${error.providerName} could not start your payment`;
  const view = { title: `${error.providerName} is not available`, kind: error.kind, providerName: error.providerName, heading, ...next };
  return sendCheckoutFailedPage(reply, view, error.statusCode);
}
