import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { recordOutcome } from '@gateway/http';
import { crossSiteRequestError, isUuid, paymentKeyRequiredError, postOrigin } from '@gateway/domain';
import { CheckoutFailedError, RetryRefusedError, type RetryRefusal, type StartedPayment } from '../../services/payment-service';
import { sendCheckoutFailed } from '../payment/checkout-failed-page';
import { cookieKeys, givePaymentKey, sendPaymentRefused } from '../payment/payment-key-cookie';
import { receiptParams } from './schemas';

// A second-chance form carries two short fields.
const FORM_BODY_LIMIT = 1024;

/** The customer's live receipt: where every provider sends the customer back. */
export const receiptRoutes: FastifyPluginAsyncTypebox<{ publicUrl: string }> = async (app, { publicUrl }) => {
  const ownOrigin = new URL(publicUrl).origin;
  // The receipt's forms post `provider=<id>&form_token=…` (HTML forms, no JavaScript needed).
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
          'providers that accept the order (a form each, to /payment/<id>/retry) to the browser holding the payment key (its ' +
          'cookie), and says where to do it to any other. Shows no e-mail, payout address or ipn_token.',
        tags: ['payment'],
        params: receiptParams,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const view = await app.receiptService.view(request.params.paymentId, cookieKeys(request));
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
          "The receipt page's form (fields provider=<id> and form_token). Only from the gateway's own pages (Origin and " +
          'Sec-Fetch-Site, when sent, must say so: else 403 cross_site_request) and with the payment key (its cookie, and the ' +
          "form's token derived from it: else 403 payment_key_required). When the payment's provider declined or failed it and no USDC arrived, " +
          'records a new payment for the same temporary wallet, amount, currency and e-mail with that provider, exactly as Process ' +
          'Payment does, and sends the browser on to its checkout (303 to /payment/<new id>/continue, which goes on to the new ' +
          "payment's link). 400 for a provider that does not accept the order, 409 when the second chance is not open (USDC " +
          'arrived, or the provider has not given up) and when the payment has had SECOND_CHANCES_MAX second chances or the order ' +
          'ORDER_ATTEMPTS_MAX attempts, 404 for no such payment.',
        tags: ['payment'],
        params: receiptParams,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { paymentId } = request.params;
      if (!isUuid(paymentId)) return reply.page('not-found', {}, 404);
      const origin = postOrigin(
        { origin: header(request.headers.origin), secFetchSite: header(request.headers['sec-fetch-site']) },
        ownOrigin,
      );
      if (origin === 'cross_site') return sendPaymentRefused(request, reply, crossSiteRequestError(), paymentId.toLowerCase());
      const body = request.body as Record<string, unknown> | undefined;
      const provider = typeof body?.provider === 'string' ? body.provider.trim().toLowerCase() : '';
      const formToken = typeof body?.form_token === 'string' ? body.form_token : undefined;
      let started: StartedPayment;
      try {
        const credentials = { keys: cookieKeys(request), ...(formToken === undefined ? {} : { formToken }) };
        started = await app.paymentService.retry(paymentId.toLowerCase(), provider, request.ip, credentials);
      } catch (error) {
        const receipt = `/payment/${paymentId.toLowerCase()}`;
        if (error instanceof RetryRefusedError) {
          if (error.refusal === 'no_payment') return reply.page('not-found', {}, 404);
          if (error.refusal === 'key_required')
            return sendPaymentRefused(request, reply, paymentKeyRequiredError(), paymentId.toLowerCase());
          recordOutcome(request, 'second chance refused', { paymentId, refusal: error.refusal });
          const status = error.refusal === 'provider_not_accepted' ? 400 : 409;
          return reply.page('checkout-failed', refusedView(error.refusal, provider, app, receipt), status);
        }
        if (!(error instanceof CheckoutFailedError)) throw error;
        return sendCheckoutFailed(request, reply, error, {
          intro: `${error.providerName} did not open a checkout for this order. Choose another provider on your receipt.`,
          chooseHref: receipt,
        });
      }
      recordOutcome(request, 'second chance taken', { paymentId, retryPaymentId: started.paymentId, provider: started.provider });
      givePaymentKey(reply, publicUrl, started.paymentId, started.key);
      // A GET page on this host, not the link itself: browsers hold a form's redirects to form-action
      // ('self'), so a redirect on to the provider would be blocked. A reload never posts again.
      return reply.redirect(`/payment/${started.paymentId}/continue`, 303);
    },
  );
};

/** A header as one string: a repeated one (an array) is not what a browser sends, so it counts as foreign. */
function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? 'repeated' : value;
}

function refusedView(
  refusal: Exclude<RetryRefusal, 'no_payment' | 'key_required'>,
  provider: string,
  app: { providers: { describe(id: string): { displayName: string } | undefined } },
  receipt: string,
) {
  const name = app.providers.describe(provider)?.displayName;
  if (refusal === 'exhausted') {
    return {
      title: 'This order cannot be retried again',
      kind: 'refused',
      heading: 'This order cannot be retried again',
      intro:
        'This order has been tried too many times with other providers. To pay, go back to the shop and start again; your ' +
        'receipt shows what happened to each attempt.',
      chooseHref: receipt,
    };
  }
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
