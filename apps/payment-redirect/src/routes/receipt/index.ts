import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { receiptParams } from './schemas';

/** The customer's live receipt: where every provider sends the customer back. */
export const receiptRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payment/:paymentId',
    {
      schema: {
        summary: 'Payment receipt page',
        description:
          "HTML page following one payment: waiting for the provider, USDC received, confirmed, sent to the merchant. Every provider's return URL. Shows no e-mail, payout address or ipn_token.",
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
};
