import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cookieKeys } from '../shared/payment-key-cookie';
import { paymentPageSchema } from '../shared/schemas';
import { receiptView } from './view-model';

/** The customer's live receipt: where every provider sends the customer back. */
export const receiptRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payment/:paymentId',
    {
      schema: paymentPageSchema(
        'Payment receipt page',
        'HTML page following one payment: waiting for the provider, USDC received, confirmed, sent to the merchant. Every ' +
          "provider's return URL. When the provider declined or failed the payment and no USDC arrived, it offers the other " +
          'providers that accept the order, ordered by the kind of the decline and headed by what to try (rankSecondChance, ' +
          'DECLINE_NEXT_TRY), a form each, to /payment/<id>/retry, to the browser holding the payment key (its ' +
          'cookie), and says where to do it to any other. Shows no e-mail, payout address or ipn_token.',
      ),
    },
    async (request, reply) => {
      const receipt = await app.receiptService.find(request.params.paymentId, cookieKeys(request), request.headers);
      if (receipt.kind === 'not_found') return reply.page('not-found', {}, 404);
      return reply.page('receipt', receiptView(receipt));
    },
  );
};
