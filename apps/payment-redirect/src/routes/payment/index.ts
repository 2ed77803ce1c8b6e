import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { prefersJson, recordOutcome } from '@gateway/http';
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
          'Records the payment and redirects the customer (302) to the provider checkout. Clients that send Accept: application/json get the checkout URL as JSON instead.',
        tags: ['payment'],
        querystring: processPaymentQuery,
        response: { 200: checkoutCreated, 400: errorBody },
      },
    },
    async (request, reply) => {
      const started = await app.paymentService.start(request.query);
      // The access line's URL already shows the e-mail masked.
      recordOutcome(request, 'payment redirected to provider', { paymentId: started.paymentId, provider: started.provider });
      reply.header('cache-control', 'no-store');
      // The answer depends on Accept: the client's preferred of text/html (a redirect, also when
      // nothing fits) and application/json, q-values honoured (application/json;q=0 is a "no").
      reply.header('vary', 'Accept');
      if (prefersJson(request.headers.accept)) {
        return { status: 'success' as const, payment_id: started.paymentId, provider: started.provider, checkout_url: started.checkoutUrl };
      }
      return reply.redirect(started.checkoutUrl, 302);
    },
  );
};
