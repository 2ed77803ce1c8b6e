import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { recordOutcome } from '@gateway/http';
import { isUuid } from '@gateway/domain';
import { CheckoutFailedError, RetryRefusedError, type RetryRefusal, type StartedPayment } from '../../services/payment-service';
import { sendCheckoutFailed } from '../payment/checkout-failed-page';
import { receiptParams } from './schemas';

// A second-chance form carries one short field.
const FORM_BODY_LIMIT = 1024;

/** The customer's live receipt: where every provider sends the customer back. */
export const receiptRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The receipt's forms post `provider=<id>` (HTML forms, no JavaScript needed).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  app.get(
    '/payment/:paymentId',
    {
      schema: {
        summary: 'Payment receipt page',
        description:
          'HTML page following one payment: waiting for the provider, USDC received, confirmed, sent to the merchant. Every ' +
          "provider's return URL. When the provider declined or failed the payment and no USDC arrived, it offers the other " +
          'providers that accept the order (a form each, to /payment/<id>/retry). Shows no e-mail, payout address or ipn_token.',
        tags: ['payment'],
        params: receiptParams,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const view = await app.receiptService.view(request.params.paymentId);
      if (!view) return reply.page('not-found', {}, 404);
      return reply.page('receipt', view);
    },
  );

  app.get(
    '/payment/:paymentId/continue',
    {
      schema: {
        summary: 'Second chance: on to the chosen provider',
        description:
          "Where the second-chance form lands: a page that goes on to the payment's link (/payment/<id>/checkout) at once (a meta " +
          "refresh, and a button), since the form's own redirects may not leave this host (form-action 'self').",
        tags: ['payment'],
        params: receiptParams,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const view = await app.receiptService.view(request.params.paymentId);
      if (!view) return reply.page('not-found', {}, 404);
      return reply.page('checkout-continue', {
        title: `Continue to ${view.providerName}`,
        providerName: view.providerName,
        amount: `${view.amount} ${view.currency}`,
        href: `/payment/${view.paymentId}/checkout`,
      });
    },
  );

  app.post(
    '/payment/:paymentId/retry',
    {
      schema: {
        summary: 'Second chance: pay the same order with another provider',
        description:
          "The receipt page's form (field provider=<id>). When the payment's provider declined or failed it and no USDC arrived, " +
          'records a new payment for the same temporary wallet, amount, currency and e-mail with that provider, exactly as Process ' +
          'Payment does, and sends the browser on to its checkout (303 to /payment/<new id>/continue, which goes on to the new ' +
          "payment's link). 400 for a provider that does not accept the order, 409 when the second chance is not open (USDC " +
          'arrived, or the provider has not given up), 404 for no such payment.',
        tags: ['payment'],
        params: receiptParams,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { paymentId } = request.params;
      if (!isUuid(paymentId)) return reply.page('not-found', {}, 404);
      const body = request.body as Record<string, unknown> | undefined;
      const provider = typeof body?.provider === 'string' ? body.provider.trim().toLowerCase() : '';
      let started: StartedPayment;
      try {
        started = await app.paymentService.retry(paymentId.toLowerCase(), provider, request.ip);
      } catch (error) {
        const receipt = `/payment/${paymentId.toLowerCase()}`;
        if (error instanceof RetryRefusedError) {
          if (error.refusal === 'no_payment') return reply.page('not-found', {}, 404);
          recordOutcome(request, 'second chance refused', { paymentId, refusal: error.refusal });
          return reply.page('checkout-failed', refusedView(error.refusal, provider, app, receipt), error.refusal === 'closed' ? 409 : 400);
        }
        if (!(error instanceof CheckoutFailedError)) throw error;
        return sendCheckoutFailed(request, reply, error, {
          intro: `${error.providerName} did not open a checkout for this order. Choose another provider on your receipt.`,
          chooseHref: receipt,
        });
      }
      recordOutcome(request, 'second chance taken', { paymentId, retryPaymentId: started.paymentId, provider: started.provider });
      // A GET page on this host, not the link itself: browsers hold a form's redirects to form-action
      // ('self'), so a redirect on to the provider would be blocked. A reload never posts again.
      return reply.redirect(`/payment/${started.paymentId}/continue`, 303);
    },
  );
};

function refusedView(
  refusal: Exclude<RetryRefusal, 'no_payment'>,
  provider: string,
  app: { providers: { describe(id: string): { displayName: string } | undefined } },
  receipt: string,
) {
  const name = app.providers.describe(provider)?.displayName;
  if (refusal === 'closed') {
    return {
      title: 'This payment cannot be retried',
      kind: 'refused',
      heading: 'This payment cannot be retried',
      intro:
        'USDC arrived for this order, or its provider has not given up on the payment: paying again could charge you twice. ' +
        'Follow the payment on its receipt.',
      chooseHref: receipt,
    };
  }
  return {
    title: 'Choose another provider',
    kind: 'refused',
    heading: name ? `${name} cannot take this order` : 'No such payment provider',
    intro: name
      ? `${name} does not accept this order (its currency or amount), or it is the provider that just declined it. Choose one of ` +
        `the providers your receipt lists.`
      : 'The provider chosen is not one this checkout offers. Choose one of the providers your receipt lists.',
    chooseHref: receipt,
  };
}
