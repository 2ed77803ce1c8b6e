import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorBodySchema, prefersJson, recordOutcome } from '@gateway/http';
import type { StartedPayment } from '../../services/checkout/payment-service';
import { CheckoutFailedError } from '../../services/checkout/provider-checkout';
import { sendCheckoutFailed, type NextSteps } from '../shared/checkout-failed-page';
import { sendToCheckout } from '../shared/checkout-page';
import { givePaymentKey } from '../shared/payment-key-cookie';
import { checkoutCreated, processPaymentQuery } from './schemas';

/** Process Payment – Single Provider: records the payment and sends the customer to its provider's checkout. */
export const processPaymentRoutes: FastifyPluginAsyncTypebox<{ publicUrl: string }> = async (app, { publicUrl }) => {
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
        started = await app.paymentService.start(
          request.query,
          request.ip,
          json ? 'json' : 'browser',
          app.checkoutPorts.customerLocation?.(request.headers),
        );
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
        providerName: app.providers.describe(started.provider)?.displayName ?? started.provider,
        amount: `${request.query.amount} ${request.query.currency.toUpperCase()}`,
      });
    },
  );
};

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
