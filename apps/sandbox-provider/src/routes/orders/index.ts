import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { GatewayError } from '@gateway/domain';
import { SANDBOX_WEBHOOK_SIGNATURE_HEADER, sandboxOrderPath, verifySandboxWebhook, type SandboxOrderStatusBody } from '@gateway/providers';
import { sandboxOrderId, type CheckoutService } from '../../services/checkout-service';

export interface OrderRoutesOptions {
  checkout: CheckoutService;
  /** The key shared with the gateway: it signs each look-up as it signs webhooks. */
  secret: Buffer;
}

/**
 * The simulated provider's order look-up, as real on-ramps have one (MoonPay's transaction by
 * external id, Banxa's Get Order): the gateway's status poller asks it about a payment. A card
 * declined leaves no order here (the sandbox only tells the gateway by webhook), so an order is
 * pending while its USDC is on the way, then paid.
 */
export const orderRoutes: FastifyPluginAsyncTypebox<OrderRoutesOptions> = async (app, { checkout, secret }) => {
  app.get(
    '/orders/:paymentId',
    {
      schema: {
        summary: 'Order status',
        description:
          `The status of the sandbox order of a gateway payment, for the gateway's status poller; the request is signed ` +
          `with ${SANDBOX_WEBHOOK_SIGNATURE_HEADER} over "GET <path>". 404 while there is no such order.`,
        tags: ['orders'],
        params: Type.Object({ paymentId: Type.String({ format: 'uuid' }) }),
      },
    },
    async (request): Promise<SandboxOrderStatusBody> => {
      const { paymentId } = request.params;
      const signature = request.headers[SANDBOX_WEBHOOK_SIGNATURE_HEADER];
      const signed = Buffer.from(`GET ${sandboxOrderPath(paymentId)}`);
      if (!verifySandboxWebhook(signed, typeof signature === 'string' ? signature : undefined, secret)) {
        throw new GatewayError('unauthorized', `missing, invalid or expired ${SANDBOX_WEBHOOK_SIGNATURE_HEADER}`);
      }
      const order = await checkout.findOrder(paymentId);
      if (!order) throw new GatewayError('not_found', 'the sandbox has no order for this payment', 'paymentId');
      return { payment_id: paymentId, order_id: sandboxOrderId(paymentId), status: order.status === 'paid' ? 'paid' : 'pending' };
    },
  );
};
