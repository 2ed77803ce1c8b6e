import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { recordOutcome } from '@gateway/http';
import { isUuid } from '@gateway/domain';
import { givePaymentKey } from '../shared/payment-key-cookie';
import { paymentPageSchema } from '../shared/schemas';

const resumeQuery = Type.Object({
  key: Type.Optional(Type.String({ maxLength: 100, description: 'the key the recovery e-mail carries (the e-mail alone has it)' })),
});

/** The recovery e-mail's link back to the same order (issue 32). */
export const recoveryLinkRoutes: FastifyPluginAsyncTypebox<{ publicUrl: string }> = async (app, { publicUrl }) => {
  app.get(
    '/payment/:paymentId/resume',
    {
      schema: paymentPageSchema(
        "The recovery e-mail's link back to the same order",
        'The link of the one e-mail a customer gets after a declined or abandoned payment. With the key the e-mail carries, the ' +
          "browser is given it as the payment's key (the cookie scoped to /payment/<id>, as Process Payment gives it) and 303 to " +
          "the receipt, whose second chance offers the other providers, after a decline; to the payment's link " +
          '(/payment/<id>/checkout) while the provider has said nothing. Without it (or with another), 303 to the receipt anyone ' +
          'with its address may read, and no key. The key leaves the address bar with the redirect; it is good for 7 days.',
        { querystring: resumeQuery },
      ),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      // The key is in this URL: no page it leads to may learn it from the Referer.
      reply.header('referrer-policy', 'no-referrer');
      const { paymentId } = request.params;
      if (!isUuid(paymentId) || request.query.key === undefined) return reply.page('not-found', {}, 404);
      const resumed = await app.checkoutLinkService.resume(paymentId.toLowerCase(), request.query.key);
      if (resumed.kind === 'not_found') return reply.page('not-found', {}, 404);
      const receipt = `/payment/${resumed.paymentId}`;
      if (resumed.key === undefined) {
        recordOutcome(request, 'recovery link without its key', { paymentId: resumed.paymentId });
        return reply.redirect(receipt, 303);
      }
      givePaymentKey(reply, publicUrl, resumed.paymentId, resumed.key);
      recordOutcome(request, 'recovery link opened', { paymentId: resumed.paymentId, target: resumed.kind });
      return reply.redirect(resumed.kind === 'checkout' ? `${receipt}/checkout` : receipt, 303);
    },
  );
};
