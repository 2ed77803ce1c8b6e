import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GatewayError } from '@gateway/domain';
import { ProviderWebhookError, type WebhookOutcome } from '@gateway/providers';
import { webhookParams } from './schemas';

/** Says what the gateway did with an accepted webhook; the body is the one the provider expects. */
export const WEBHOOK_OUTCOME_HEADER = 'x-webhook-outcome';

/**
 * Providers' signed status webhooks, each verified by its provider's adapter on the raw body. They
 * update what the receipt page says; money and merchant callbacks follow the chain only, so a
 * forged webhook could at worst mislabel a wait. An authentic webhook is answered as its
 * provider expects, also when it is about no payment of ours (a retry would not change that).
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
          "A provider's signed notice about a payment (paid, declined, failed), verified with that provider's scheme and key. Answered with the status and body the provider expects; the x-webhook-outcome header says what was done (updated, unchanged, unknown_payment, ignored). 401 unauthorized (our error shape) when the signature is missing, wrong or stale; 404 for a provider without webhooks here.",
        tags: ['webhooks'],
        params: webhookParams,
      },
    },
    async (request, reply) => {
      const { provider } = request.params;
      const receiver = app.providers.webhookReceiver(provider);
      if (!receiver) {
        throw new GatewayError('not_found', `no webhook for provider "${provider}" on this gateway`, 'provider');
      }
      const { adapter } = receiver;
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      let verified: WebhookOutcome;
      try {
        verified = await adapter.verifyWebhook(rawBody, request.headers);
      } catch (error) {
        if (!(error instanceof ProviderWebhookError)) {
          // Authentic or not, it could not be read now (a provider API it needs failed): the provider retries a 5xx.
          app.webhookCounter.inc({ provider, outcome: 'failed' });
          request.log.error({ provider, err: error }, 'provider webhook could not be processed');
          throw new GatewayError(
            'service_unavailable',
            `the ${provider} webhook could not be processed right now; send it again later`,
            undefined,
            { retryAfterSeconds: 60 },
          );
        }
        app.webhookCounter.inc({ provider, outcome: 'refused' });
        request.log.warn({ provider, reason: error.message }, 'provider webhook refused');
        throw new GatewayError('unauthorized', `webhook refused: ${error.message}`);
      }
      let outcome: string;
      if (verified.kind === 'ignored') {
        outcome = 'ignored';
        request.log.info({ provider, why: verified.why }, 'provider webhook ignored');
      } else {
        const { event } = verified;
        outcome = await app.paymentReceipts.recordProviderStatus({
          providers: receiver.providers,
          match: event.match,
          status: event.status,
          rawStatus: event.rawStatus,
          ...(event.providerReference ? { providerReference: event.providerReference } : {}),
          ...(event.reason ? { reason: event.reason } : {}),
          ...(event.txHash ? { txHash: event.txHash } : {}),
        });
        request.log[outcome === 'unknown_payment' ? 'warn' : 'info'](
          {
            provider,
            paymentId: event.match.paymentId,
            providerReference: event.providerReference,
            status: event.status,
            rawStatus: event.rawStatus,
            outcome,
          },
          'provider webhook',
        );
      }
      app.webhookCounter.inc({ provider, outcome });
      const { acknowledgement } = verified;
      return reply
        .code(acknowledgement.statusCode)
        .header(WEBHOOK_OUTCOME_HEADER, outcome)
        .type(acknowledgement.contentType)
        .send(acknowledgement.body);
    },
  );
};
