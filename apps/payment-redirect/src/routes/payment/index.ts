import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { prefersJson, recordOutcome } from '@gateway/http';
import { CheckoutFailedError, type StartedPayment } from '../../services/payment-service';
import { checkoutCreated, errorBody, processPaymentQuery } from './schemas';

export const paymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/process-payment.php',
    {
      // Records a payment: HEAD must not run it (405, Allow: GET), unlike Fastify's default HEAD for every GET.
      exposeHeadRoute: false,
      schema: {
        summary: 'Process Payment - Single Provider',
        description:
          'Records the payment, asks the provider for the checkout, and redirects the customer (302) to it. Clients that send Accept: application/json get the checkout URL as JSON instead. When the provider gives no checkout (it refused: 502 provider_error; it did not answer in time: 503 provider_unavailable), a browser gets a page that offers to try again or choose another provider (pay.php for the same order), a JSON client the error.',
        tags: ['payment'],
        querystring: processPaymentQuery,
        response: { 200: checkoutCreated, 400: errorBody, 502: errorBody, 503: errorBody },
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
        started = await app.paymentService.start(request.query, request.ip);
      } catch (error) {
        if (!(error instanceof CheckoutFailedError) || json) throw error;
        recordOutcome(request, 'provider gave no checkout', { paymentId: error.paymentId, code: error.code });
        if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
        return reply.page('checkout-failed', checkoutFailedView(error, request.query), error.statusCode);
      }
      // The access line's URL already shows the e-mail masked.
      recordOutcome(request, 'payment redirected to provider', { paymentId: started.paymentId, provider: started.provider });
      if (json) {
        return { status: 'success' as const, payment_id: started.paymentId, provider: started.provider, checkout_url: started.checkoutUrl };
      }
      return reply.redirect(started.checkoutUrl, 302);
    },
  );
};

/** The page a customer sees when the provider gave no checkout: try again (when it may help), or another provider for the same order. */
function checkoutFailedView(
  error: CheckoutFailedError,
  query: { address: string; amount: string; provider: string; email: string; currency: string },
) {
  const order = { address: query.address, amount: query.amount, email: query.email, currency: query.currency };
  const unavailable = error.kind === 'unavailable';
  return {
    title: `${error.providerName} is not available`,
    kind: error.kind,
    providerName: error.providerName,
    heading: unavailable ? `${error.providerName} is not answering right now` : `${error.providerName} could not start your payment`,
    intro: unavailable
      ? `We could not reach ${error.providerName} to open your checkout. Try again in a moment, or pay with another provider.`
      : `${error.providerName} did not accept this order. You can pay the same order with another provider.`,
    retryHref: unavailable ? `/process-payment.php?${new URLSearchParams({ ...order, provider: query.provider }).toString()}` : undefined,
    chooseHref: `/pay.php?${new URLSearchParams(order).toString()}`,
  };
}
