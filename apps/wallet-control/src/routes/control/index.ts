import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { rateLimitClientOf } from '@gateway/domain';
import type { PreparedWalletRequest } from '../../services/wallet-service';
import { createWalletQuery, createWalletRoute } from './schemas';
import { answerWallet } from './wallet-answer';

declare module 'fastify' {
  interface FastifyRequest {
    /** wallet.php: the query as parsed when the request arrived, and its quota asked (WalletService.prepare). */
    walletPreparation: PreparedWalletRequest | null;
  }
}

export const controlRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('walletPreparation', null);
  app.get(
    '/control/wallet.php',
    {
      ...createWalletRoute({
        summary: 'Create Wallet',
        description:
          'Returns a temporary receiving wallet for a payout address and callback URL; the same pair returns the same wallet. ' +
          'A callback URL belongs to the first wallet registered with it: another payout address gets 409 callback_registered_elsewhere. ' +
          '403 address_not_allowed: a payout address the operator did not pin (PAYOUT_ADDRESSES); 429 for a new wallet only ' +
          '(a wallet that exists is still answered), with Retry-After: payout_quota_exceeded (too many new wallets for this payout ' +
          'address on this callback origin), new_wallet_client_limit (too many new wallets from this client this minute), ' +
          'new_wallet_ceiling (the whole gateway made its most new wallets this minute).',
        querystring: createWalletQuery,
      }),
      // Route hooks run before the rate limiter's (@fastify/rate-limit appends its own): the quota
      // is asked in the same moment as the rate limit, not one round trip to Redis after it.
      onRequest: (request, _reply, done) => {
        request.walletPreparation = app.walletService.prepare(request.query, rateLimitClientOf(request.ip)) ?? null;
        done();
      },
    },
    async (request, reply) => {
      const outcome = await app.walletService.createOrGet(
        request.query,
        rateLimitClientOf(request.ip),
        request.walletPreparation ?? undefined,
      );
      return answerWallet(request, reply, outcome, 'wallet');
    },
  );
};
