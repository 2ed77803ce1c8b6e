import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GatewayError } from '@gateway/domain';
import { errorBodySchema, keyedRateLimit } from '@gateway/http';
import { paymentStatusQuery } from '../status/schemas';
import { callbackResendBody } from './schemas';

export interface CallbackResendRouteOptions {
  /** Requests per client per window, as payment-status.php has (the same token answers both). */
  rateLimitMax: number;
  rateLimitWindowMs: number;
}

/** One resend per wallet per five minutes: time to fix the shop's end between two, and no way to hammer its server through us. */
export const RESEND_WINDOW_MS = 5 * 60_000;

/** Resend the latest callback: a merchant that lost it, or answered it wrongly, asks for it again. */
export function callbackResendRoutes(options: CallbackResendRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    const perWallet = keyedRateLimit(app, {
      max: 1,
      windowMs: RESEND_WINDOW_MS,
      // Counted once the token has found its wallet (one token, one wallet); the token itself is a secret Redis never sees.
      key: (request) =>
        `callback-resend:${createHash('sha256')
          .update((request.query as { ipn_token: string }).ipn_token)
          .digest('hex')}`,
    });

    app.post(
      '/control/resend-callback.php',
      {
        config: { rateLimit: { max: options.rateLimitMax, timeWindow: options.rateLimitWindowMs } },
        schema: {
          summary: 'Resend the latest callback',
          description:
            "Sends the wallet's latest callback again: the same delivery (same x-gateway-delivery-id, same URL, signed anew), " +
            'delivered or given up on, is queued and the callback-worker sends it within seconds. Once per wallet per 5 minutes ' +
            '(429 with Retry-After); 409 while there is none yet or it is still on its way. Also limited per client as ' +
            'payment-status.php is (STATUS_RATE_LIMIT_MAX per window).',
          tags: ['wallet'],
          querystring: paymentStatusQuery,
          response: { 200: callbackResendBody, 400: errorBodySchema, 404: errorBodySchema, 409: errorBodySchema, 429: errorBodySchema },
        },
      },
      async (request) => {
        const outcome = await app.callbackResendService.resendLatest(request.query.ipn_token, () => perWallet(request));
        switch (outcome.result) {
          case 'unknown_wallet':
            throw new GatewayError(
              'not_found',
              'no wallet has this ipn_token; use the ipn_token Create Wallet returned (it is also in every callback)',
              'ipn_token',
            );
          case 'nothing_to_resend':
            throw new GatewayError(
              'conflict',
              'nothing to resend yet: this wallet has had no callback (one is sent for each payment once it is forwarded to the ' +
                'payout wallet); see payment-status.php for its deposits',
              'ipn_token',
            );
          case 'rate_limited':
            throw new GatewayError(
              'rate_limited',
              `this wallet's callback was asked for again less than ${RESEND_WINDOW_MS / 60_000} minutes ago; retry after the ` +
                'Retry-After delay (payment-status.php shows how the last resend went, under callback_log)',
              'ipn_token',
              { retryAfterSeconds: outcome.retryAfterSeconds },
            );
          case 'pending':
            throw new GatewayError(
              'conflict',
              `the latest callback (delivery ${outcome.deliveryId}) is still on its way: its next attempt is due at ` +
                `${outcome.nextAttemptAt.toISOString()}; nothing to resend until it is delivered or given up on`,
              'ipn_token',
            );
          case 'resent':
            request.log.info({ deliveryId: outcome.deliveryId }, "callback resent at the merchant's request");
            return {
              status: 'success' as const,
              delivery_id: outcome.deliveryId,
              delivery_status: 'pending' as const,
              next_attempt_at: outcome.nextAttemptAt.toISOString(),
            };
        }
      },
    );
  };
}
