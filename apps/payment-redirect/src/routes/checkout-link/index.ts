import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { recordOutcome } from '@gateway/http';
import { isUuid, paymentKeyRequiredError } from '@gateway/domain';
import { receiptUrl, type CheckoutFailedError } from '../../services/checkout/provider-checkout';
import { sendCheckoutFailed, type NextSteps } from '../shared/checkout-failed-page';
import { sendToCheckout } from '../shared/checkout-page';
import { cookieKeys, givePaymentKey, sendPaymentRefused } from '../shared/payment-key-cookie';
import { paymentPageSchema } from '../shared/schemas';
import { checkoutLinkQuery } from './schemas';

/** The customer's link to a payment's checkout, for the browser holding its key. */
export const checkoutLinkRoutes: FastifyPluginAsyncTypebox<{ publicUrl: string }> = async (app, { publicUrl }) => {
  app.get(
    '/payment/:paymentId/checkout',
    {
      // Opens a checkout at the provider: HEAD must not (405), like Process Payment.
      exposeHeadRoute: false,
      schema: paymentPageSchema(
        "The customer's link to a payment's checkout",
        "Sends the customer to the payment's checkout: the one recorded while it is usable (a reload), or a fresh one from the " +
          'provider once it has expired or, where the provider accepts a checkout once, was handed out. Once the provider has an ' +
          'order for the payment (or USDC arrived), 303 to its receipt page instead: a second checkout could charge twice. When ' +
          "the provider gives no checkout, the error page. Only with the payment's key: the cookie Process Payment gave the " +
          'browser, or the key query parameter of the checkout_link a JSON client got (the cookie is then given); 403 ' +
          'payment_key_required otherwise (a page, or the error as JSON).',
        { querystring: checkoutLinkQuery },
      ),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { paymentId } = request.params;
      if (!isUuid(paymentId)) return reply.page('not-found', {}, 404);
      const keys = request.query.key === undefined ? cookieKeys(request) : [request.query.key, ...cookieKeys(request)];
      const opened = await app.checkoutLinkService.open(paymentId.toLowerCase(), request.ip, keys);
      if (opened.kind === 'checkout_failed')
        return sendCheckoutFailed(request, reply, opened.failure, linkNextSteps(opened.failure, request.url));
      if (opened.kind === 'not_found') return reply.page('not-found', {}, 404);
      if (opened.kind === 'key_required') return sendPaymentRefused(request, reply, paymentKeyRequiredError(), paymentId.toLowerCase());
      // The link's key becomes the browser's: its receipt's second chance needs it.
      givePaymentKey(reply, publicUrl, opened.paymentId, opened.key);
      if (opened.kind !== 'checkout') return reply.redirect(receiptUrl('', opened.paymentId), 303);
      recordOutcome(request, 'payment link opened', { paymentId: opened.paymentId, provider: opened.providerId });
      return sendToCheckout(reply, opened.target, {
        providerName: app.providers.describe(opened.providerId)?.displayName ?? opened.providerId,
        amount: `${opened.amount} ${opened.currency}`,
      });
    },
  );
};

/** From the customer's link: try the link again (a fresh checkout), nothing else to choose without the order's link. */
function linkNextSteps(error: CheckoutFailedError, link: string): NextSteps {
  return error.kind === 'unavailable'
    ? { intro: `We could not reach ${error.providerName} to open your checkout. Try again in a moment.`, retryHref: link }
    : { intro: `${error.providerName} did not accept this order. Go back to the shop to choose another way to pay.` };
}
