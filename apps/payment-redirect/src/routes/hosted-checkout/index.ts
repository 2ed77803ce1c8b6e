import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GatewayError } from '@gateway/domain';
import { allowImageOrigin, type RawQuery } from '../../services/hosted-checkout-service';
import { hostedCheckoutQuery } from './schemas';

/** Process Payment – Multi-Providers: the hosted checkout page listing every provider that can take the order. */
export const hostedCheckoutRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/pay.php',
    {
      attachValidation: true,
      schema: {
        summary: 'Process Payment - Multi-Providers (hosted checkout)',
        description:
          'HTML page listing the providers that can take this order, each a link to Process Payment with the amount it charges (USD-only providers: the amount converted to USD, rounded up to the cent). Providers under their minimum are listed as unavailable with the reason. A bad link gets an HTML error page: 400 (a parameter is missing or invalid) or 404 (the address_in belongs to no wallet of this gateway). Never framed.',
        tags: ['payment'],
        querystring: hostedCheckoutQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      // The service parses the raw query itself: validation failures only reach the log.
      if (request.validationError) request.log.debug({ validation: request.validationError.message }, 'pay.php query off-schema');
      const outcome = await app.hostedCheckoutService.prepare(request.query as RawQuery);
      if (outcome.kind === 'error') {
        if (outcome.cause) request.log.error({ err: outcome.cause }, 'hosted checkout: wallet lookup failed');
        else
          request.log.info(
            { status: outcome.status, params: outcome.problems.map((problem) => problem.param) },
            'hosted checkout link refused',
          );
        if (outcome.status === 503) reply.header('retry-after', '30');
        return reply.page('pay-error', outcome.view, outcome.status);
      }
      if (outcome.ratesError) {
        const expected = outcome.ratesError instanceof GatewayError && outcome.ratesError.code === 'service_unavailable';
        request.log[expected ? 'warn' : 'error'](
          { err: outcome.ratesError },
          'hosted checkout without exchange rates: USD-only providers withheld',
        );
      }
      if (outcome.ignoredBranding.length > 0) request.log.info({ ignored: outcome.ignoredBranding }, 'hosted checkout branding ignored');
      if (outcome.logoOrigin) {
        const policy = reply.getHeader('content-security-policy');
        if (typeof policy === 'string') reply.header('content-security-policy', allowImageOrigin(policy, outcome.logoOrigin));
      }
      return reply.page('pay', outcome.view);
    },
  );
};
