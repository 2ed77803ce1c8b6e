import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorBodySchema, prefersJson, recordOutcome } from '@gateway/http';
import { isUuid, paymentKeyRequiredError } from '@gateway/domain';
import { CheckoutFailedError, receiptUrl, type StartedPayment } from '../../services/payment-service';
import { sendCheckoutFailed, type NextSteps } from './checkout-failed-page';
import { sendToCheckout } from './checkout-page';
import { cookieKeys, givePaymentKey, sendPaymentRefused } from './payment-key-cookie';
import { checkoutCreated, checkoutLinkParams, checkoutLinkQuery, processPaymentQuery } from './schemas';

export const paymentRoutes: FastifyPluginAsyncTypebox<{ publicUrl: string }> = async (app, { publicUrl }) => {
  app.get(
    '/process-payment.php',
    {
      // Records a payment: HEAD must not run it (405, Allow: GET), unlike Fastify's default HEAD for every GET.
      exposeHeadRoute: false,
      schema: {
        summary: 'Process Payment - Single Provider',
        description:
          'Records the payment, asks the provider for the checkout, and redirects the customer (302) to it, or, for a provider whose ' +
          'checkout is a form, answers the page that posts it. Clients that send Accept: application/json get the checkout URL, ' +
          "until when it is good, and the customer's link (which opens a fresh checkout once that one has expired) as JSON " +
          'instead. When the provider gives no checkout (it refused: 502 provider_error; it did not answer in time: 503 ' +
          'provider_unavailable), a browser gets a page that offers to try again or choose another provider (pay.php for the same ' +
          'order), a JSON client the error.',
        tags: ['payment'],
        querystring: processPaymentQuery,
        response: { 200: checkoutCreated, 400: errorBodySchema, 502: errorBodySchema, 503: errorBodySchema },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      // The answer depends on Accept: the client's preferred of text/html (a redirect, also when
      // nothing fits) and application/json, q-values honoured (application/json;q=0 is a "no").
      reply.header('vary', 'Accept');
      const json = prefersJson(request.headers.accept);
      let started: StartedPayment;
      try {
        started = await app.paymentService.start(request.query, request.ip, json ? 'json' : 'browser');
      } catch (error) {
        if (!(error instanceof CheckoutFailedError) || json) throw error;
        return sendCheckoutFailed(request, reply, error, processPaymentNextSteps(error, request.query));
      }
      // The access line's URL already shows the e-mail masked.
      recordOutcome(request, 'payment redirected to provider', { paymentId: started.paymentId, provider: started.provider });
      const { checkout } = started;
      // A JSON client gets the key in checkout_link, for the customer it sends there.
      if (!json) givePaymentKey(reply, publicUrl, started.paymentId, started.key);
      if (json) {
        return {
          status: 'success' as const,
          payment_id: started.paymentId,
          provider: started.provider,
          // A form cannot be a URL: its client gets the customer's link, which serves the form.
          checkout_url: checkout.kind === 'redirect' ? checkout.url : started.link,
          checkout_expires_at:
            checkout.kind === 'redirect' && checkout.expiresAt !== undefined ? new Date(checkout.expiresAt).toISOString() : null,
          checkout_link: started.link,
        };
      }
      return sendToCheckout(reply, checkout, {
        providerName: providerName(started.provider),
        amount: `${request.query.amount} ${request.query.currency.toUpperCase()}`,
      });
    },
  );

  app.get(
    '/payment/:paymentId/checkout',
    {
      // Opens a checkout at the provider: HEAD must not (405), like Process Payment.
      exposeHeadRoute: false,
      schema: {
        summary: "The customer's link to a payment's checkout",
        description:
          "Sends the customer to the payment's checkout: the one recorded while it is usable (a reload), or a fresh one from the " +
          'provider once it has expired or, where the provider accepts a checkout once, was handed out. Once the provider has an ' +
          'order for the payment (or USDC arrived), 303 to its receipt page instead: a second checkout could charge twice. When ' +
          "the provider gives no checkout, the error page. Only with the payment's key: the cookie Process Payment gave the " +
          'browser, or the key query parameter of the checkout_link a JSON client got (the cookie is then given); 403 ' +
          'payment_key_required otherwise (a page, or the error as JSON).',
        tags: ['payment'],
        params: checkoutLinkParams,
        querystring: checkoutLinkQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { paymentId } = request.params;
      if (!isUuid(paymentId)) return reply.page('not-found', {}, 404);
      const keys = request.query.key === undefined ? cookieKeys(request) : [request.query.key, ...cookieKeys(request)];
      let opened: Awaited<ReturnType<typeof app.paymentService.open>>;
      try {
        opened = await app.paymentService.open(paymentId.toLowerCase(), request.ip, keys);
      } catch (error) {
        if (!(error instanceof CheckoutFailedError)) throw error;
        return sendCheckoutFailed(request, reply, error, linkNextSteps(error, request.url));
      }
      if (!opened) return reply.page('not-found', {}, 404);
      if (opened === 'key_required') return sendPaymentRefused(request, reply, paymentKeyRequiredError(), paymentId.toLowerCase());
      // The link's key becomes the browser's: its receipt's second chance needs it.
      givePaymentKey(reply, publicUrl, opened.paymentId, opened.key);
      if (opened.kind !== 'checkout') return reply.redirect(receiptUrl('', opened.paymentId), 303);
      recordOutcome(request, 'payment link opened', { paymentId: opened.paymentId, provider: opened.providerId });
      return sendToCheckout(reply, opened.target, {
        providerName: providerName(opened.providerId),
        amount: `${opened.amount} ${opened.currency}`,
      });
    },
  );

  function providerName(id: string): string {
    return app.providers.describe(id)?.displayName ?? id;
  }
};

/** From the customer's link: try the link again (a fresh checkout), nothing else to choose without the order's link. */
function linkNextSteps(error: CheckoutFailedError, link: string): NextSteps {
  return error.kind === 'unavailable'
    ? { intro: `We could not reach ${error.providerName} to open your checkout. Try again in a moment.`, retryHref: link }
    : { intro: `${error.providerName} did not accept this order. Go back to the shop to choose another way to pay.` };
}

/** From Process Payment: try again (when it may help), or another provider for the same order. */
function processPaymentNextSteps(
  error: CheckoutFailedError,
  query: { address: string; amount: string; provider: string; email: string; currency: string },
): NextSteps {
  const order = { address: query.address, amount: query.amount, email: query.email, currency: query.currency };
  const unavailable = error.kind === 'unavailable';
  return {
    intro: unavailable
      ? `We could not reach ${error.providerName} to open your checkout. Try again in a moment, or pay with another provider.`
      : `${error.providerName} did not accept this order. You can pay the same order with another provider.`,
    retryHref: unavailable ? `/process-payment.php?${new URLSearchParams({ ...order, provider: query.provider }).toString()}` : undefined,
    chooseHref: `/pay.php?${new URLSearchParams(order).toString()}`,
  };
}
