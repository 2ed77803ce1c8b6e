import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GatewayError } from '@gateway/domain';
import { errorBodySchema } from '@gateway/http';
import { paymentStatusBody, paymentStatusQuery } from './schemas';
import { paymentStatusView } from './view-model';

export interface StatusRouteOptions {
  /** Requests per client per window: tighter than the global limit (it answers about a payment by its token). */
  rateLimitMax: number;
  rateLimitWindowMs: number;
}

/** Check Payment Status. */
export function statusRoutes(options: StatusRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/control/payment-status.php',
      {
        config: { rateLimit: { max: options.rateLimitMax, timeWindow: options.rateLimitWindowMs } },
        schema: {
          summary: 'Check Payment Status',
          description:
            'The payments into the wallet of an ipn_token: paid once a deposit has been forwarded, the forwarded amounts, every ' +
            'deposit with its status and the provider status of each payment, how its callbacks went (callback_log), and where ' +
            'the order stands (order: its total, what it should bring and its state, as the callbacks say). ' +
            'Has a tighter rate limit of its own (STATUS_RATE_LIMIT_MAX per window); 429 with Retry-After past it.',
          tags: ['wallet'],
          querystring: paymentStatusQuery,
          response: { 200: paymentStatusBody, 400: errorBodySchema, 404: errorBodySchema, 429: errorBodySchema },
        },
      },
      async (request) => {
        const payments = await app.paymentStatusService.statusOf(request.query.ipn_token);
        if (!payments) {
          throw new GatewayError(
            'not_found',
            'no wallet has this ipn_token; use the ipn_token Create Wallet returned (it is also in every callback)',
            'ipn_token',
          );
        }
        return paymentStatusView(payments);
      },
    );
  };
}
