import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GatewayError } from '@gateway/domain';
import type { RawQuery } from '../../services/hosted-checkout-service';
import { parseBranding } from './branding';
import { allowImageOrigin } from './content-security-policy';
import { hostedCheckoutQuery } from './schemas';
import { checkoutErrorView, checkoutPageView } from './view-model';

/** Process Payment – Multi-Providers: the hosted checkout page listing every provider that can take the order. */
export const hostedCheckoutRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/pay.php',
    {
      attachValidation: true,
      schema: {
        summary: 'Process Payment - Multi-Providers (hosted checkout)',
        description:
          'HTML page listing the providers that can take this order, each a link to Process Payment with the amount it charges ' +
          '(USD-only providers: the amount converted to USD, rounded up to the cent), what the customer pays and the shop receives ' +
          '(a quote, or an estimate from the documented fees), the payment methods and the usual time to USDC; 3 to 5 recommended ' +
          'first (rankCheckoutOptions), the rest behind a "More providers" disclosure. Providers under their minimum are listed as ' +
          'unavailable with the reason. A bad link gets an HTML error page, 400, with what Process Payment answers for it ' +
          '(a parameter missing or invalid, or an address_in that belongs to no wallet of this gateway). Never framed.',
        tags: ['payment'],
        querystring: hostedCheckoutQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      // The service parses the raw query itself: validation failures only reach the log.
      if (request.validationError) request.log.debug({ validation: request.validationError.message }, 'pay.php query off-schema');
      const query = request.query as RawQuery;
      const branding = parseBranding(query);
      const offer = await app.hostedCheckoutService.prepare(query, request.headers);
      if (offer.kind === 'error') {
        if (offer.cause) request.log.error({ err: offer.cause }, 'hosted checkout: wallet lookup failed');
        else
          request.log.info(
            { status: offer.status, params: offer.problems.map((problem) => problem.param) },
            'hosted checkout link refused',
          );
        if (offer.status === 503) reply.header('retry-after', '30');
        return reply.page('pay-error', checkoutErrorView(offer, branding), offer.status);
      }
      if (offer.ratesError) {
        const expected = offer.ratesError instanceof GatewayError && offer.ratesError.code === 'service_unavailable';
        request.log[expected ? 'warn' : 'error'](
          { err: offer.ratesError },
          'hosted checkout without exchange rates: USD-only providers withheld',
        );
      }
      for (const failure of offer.prices.failures) {
        request.log.warn({ err: failure.error, provider: failure.provider }, 'hosted checkout: quote failed, estimate shown');
      }
      if (branding.ignored.length > 0) request.log.info({ ignored: branding.ignored }, 'hosted checkout branding ignored');
      if (branding.logoOrigin) {
        const policy = reply.getHeader('content-security-policy');
        if (typeof policy === 'string') reply.header('content-security-policy', allowImageOrigin(policy, branding.logoOrigin));
      }
      return reply.page('pay', checkoutPageView(offer, branding));
    },
  );
};
