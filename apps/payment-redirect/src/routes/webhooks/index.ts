import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GatewayError } from '@gateway/domain';
import { webhookParams } from './schemas';

/** Says what the gateway did with an accepted webhook; the body is the one the provider expects. */
export const WEBHOOK_OUTCOME_HEADER = 'x-webhook-outcome';

/**
 * Providers' status webhooks, each verified by its provider's adapter on the raw body, and
 * recorded (or, unsigned, taken as a hint to ask the provider) by the ProviderStatusService. They
 * update what the receipt page says; money and merchant callbacks follow the chain only, so a
 * forged webhook could at worst mislabel a wait. An authentic webhook is answered as its
 * provider expects, also when it is about no payment of ours (a retry would not change that).
 * This route only speaks HTTP.
 */
export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Signatures are computed over the bytes as sent: keep the body raw in this scope.
  // Whatever the type (JSON for most providers, a form for some), the adapter reads the bytes.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post(
    '/webhooks/:provider',
    {
      schema: {
        summary: 'Provider webhook',
        description:
          "A provider's signed notice about a payment (paid, declined, failed), verified with that provider's scheme and key. " +
          'Answered with the status and body the provider expects; the x-webhook-outcome header says what was done (updated, ' +
          "unchanged, unknown_payment, ignored; hint for an unsigned provider's webhook, answered at once, after which the " +
          'gateway asks the provider itself). 401 unauthorized (our error shape) when the signature is missing, wrong or stale; ' +
          '404 for a provider without webhooks here.',
        tags: ['webhooks'],
        params: webhookParams,
      },
    },
    async (request, reply) => {
      const { provider } = request.params;
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const receipt = await app.providerStatus.receiveWebhook(provider, rawBody, request.headers);
      switch (receipt.kind) {
        case 'no_receiver':
          throw new GatewayError('not_found', `no webhook for provider "${provider}" on this gateway`, 'provider');
        case 'refused':
          throw new GatewayError('unauthorized', `webhook refused: ${receipt.reason}`);
        case 'failed':
          // Authentic or not, it could not be read now (a provider API it needs failed): the provider retries a 5xx.
          throw new GatewayError(
            'service_unavailable',
            `the ${provider} webhook could not be processed right now; send it again later`,
            undefined,
            { retryAfterSeconds: 60 },
          );
        case 'accepted': {
          const { acknowledgement } = receipt;
          return reply
            .code(acknowledgement.statusCode)
            .header(WEBHOOK_OUTCOME_HEADER, receipt.outcome)
            .type(acknowledgement.contentType)
            .send(acknowledgement.body);
        }
      }
    },
  );
};
