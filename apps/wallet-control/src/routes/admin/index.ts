import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Pool } from 'pg';
import { CallbackDeliveryRepository, resendCallbackDelivery } from '@gateway/db/wallet-control';
import { GatewayError, invalidParameter } from '@gateway/domain';
import { errorBodySchema } from '@gateway/http';
import { ledgerRoutes } from './ledger';

const resendResponse = Type.Object({
  status: Type.Literal('success'),
  delivery_id: Type.String(),
  delivery_status: Type.Literal('pending'),
  next_attempt_at: Type.String({ description: 'ISO 8601; the callback-worker reconciler sends it shortly after this time' }),
});

/**
 * Operator routes, registered only when ADMIN_TOKEN is configured: the resend of a failed callback,
 * and a merchant's ledger (ledger.ts). They use PostgreSQL only: a resent delivery is pending and
 * due, and the callback-worker's reconciler queues it, so wallet-control needs no Redis.
 */
export const adminRoutes =
  (options: { token: string; pool: Pool }): FastifyPluginAsyncTypebox =>
  async (app) => {
    const deliveries = new CallbackDeliveryRepository(options.pool);
    const expected = digest(options.token);

    app.addHook('onRequest', async (request, reply) => {
      const header = request.headers.authorization ?? '';
      const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
      // Both sides hashed to the same length, so the comparison time says nothing about the token.
      if (!timingSafeEqual(digest(presented), expected)) {
        reply.header('www-authenticate', 'Bearer realm="gateway-admin"');
        throw new GatewayError('unauthorized', 'admin routes need the header Authorization: Bearer <ADMIN_TOKEN>');
      }
    });

    // Behind the token check above: a registered plugin inherits this one's hooks.
    await app.register(ledgerRoutes({ pool: options.pool }));

    app.post(
      '/admin/callbacks/:id/resend',
      {
        schema: {
          hide: true,
          params: Type.Object({ id: Type.String({ description: 'callback delivery id (uuid), as in the x-gateway-delivery-id header' }) }),
          response: { 200: resendResponse, 400: errorBodySchema, 401: errorBodySchema, 404: errorBodySchema, 409: errorBodySchema },
        },
      },
      async (request) => {
        const { id } = request.params;
        // The same operation as `gateway callbacks resend`, without Redis: the reconciler queues it.
        const outcome = await resendCallbackDelivery(deliveries, id);
        if (outcome.result === 'invalid_id') throw invalidParameter('id', outcome.message);
        if (outcome.result === 'not_found') throw new GatewayError('not_found', outcome.message, 'id');
        if (outcome.result === 'not_failed') throw new GatewayError('conflict', outcome.message, 'id');
        request.log.info({ deliveryId: id }, 'failed callback delivery resent by an operator');
        return {
          status: 'success' as const,
          delivery_id: outcome.deliveryId,
          delivery_status: 'pending' as const,
          next_attempt_at: outcome.nextAttemptAt.toISOString(),
        };
      },
    );
  };

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
