import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GatewayError } from '@gateway/domain';
import { ProviderWebhookError } from '@gateway/providers';
import { errorBody } from '../payment/schemas';
import { webhookAccepted, webhookParams } from './schemas';

/**
 * Providers' signed status webhooks. They update what the receipt page says; money and merchant
 * callbacks follow the chain only, so a forged webhook could at worst mislabel a wait.
 */
export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Signatures are computed over the bytes as sent: keep the body raw in this scope.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post(
    '/webhooks/:provider',
    {
      schema: {
        summary: 'Provider webhook',
        description: "A provider's signed notice about a payment (paid, declined, failed). Verified with that provider's adapter.",
        tags: ['webhooks'],
        params: webhookParams,
        response: { 200: webhookAccepted, 401: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      const { provider } = request.params;
      const adapter = app.providerAdapters.get(provider);
      if (!adapter?.capabilities.webhooks) {
        throw new GatewayError('not_found', `no webhook for provider "${provider}"`, 'provider');
      }
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      let event;
      try {
        event = adapter.parseWebhook({ headers: request.headers, rawBody });
      } catch (error) {
        if (!(error instanceof ProviderWebhookError)) throw error;
        app.webhookCounter.inc({ provider, outcome: 'refused' });
        throw new GatewayError('unauthorized', `webhook refused: ${error.message}`);
      }
      const outcome = await app.paymentReceipts.recordProviderStatus({ ...event, provider });
      app.webhookCounter.inc({ provider, outcome });
      if (outcome === 'unknown_payment') {
        throw new GatewayError('not_found', `no ${provider} payment ${event.paymentId.slice(0, 40)}`, 'payment_id');
      }
      request.log.info({ paymentId: event.paymentId, provider, status: event.status, outcome }, 'provider webhook');
      return { status: 'success' as const, outcome };
    },
  );
};
