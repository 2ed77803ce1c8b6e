import { rateLimitClientOf } from '@gateway/domain';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { affiliateWalletQuery, customAffiliateWalletQuery } from './schemas';
import { createWalletRoute } from '../control/schemas';
import { answerWallet } from '../control/wallet-answer';

/** Create Wallet – Affiliate: a temporary wallet whose payments also pay an affiliate. */
export const affiliateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/control/affiliate.php',
    createWalletRoute({
      summary: 'Create Wallet – Affiliate',
      description:
        'As Create Wallet, plus an affiliate wallet that earns the configured affiliate share of every payment into this wallet ' +
        '(beside the platform fee; the payout wallet gets the rest). ' +
        'The same address, callback and affiliate return the same wallet; the same address and callback with other affiliate terms ' +
        '(or none) get 409, another address callback_registered_elsewhere (409). ' +
        '403: an address the operator did not pin, affiliate wallets turned off, or no consent to the terms: ' +
        'affiliate_consent_required (neither an affiliate ' +
        "the operator pinned in AFFILIATE_ADDRESSES nor `signature`, the payout address's personal_sign of the consent message, " +
        'which the error quotes) ' +
        'or affiliate_consent_invalid (a signature by another key or over other terms).',
      querystring: affiliateWalletQuery,
    }),
    async (request, reply) => {
      const outcome = await app.walletService.createOrGetAffiliate(request.query, rateLimitClientOf(request.ip));
      return answerWallet(request, reply, outcome, 'affiliate wallet');
    },
  );

  app.get(
    '/control/custom-affiliate.php',
    createWalletRoute({
      summary: 'Create Wallet – Custom Affiliate',
      description:
        'As Create Wallet, with the split given: the payout wallet gets merchant_fee, the affiliate affiliate_fee and the platform ' +
        'the rest (merchant_fee + affiliate_fee = 1 minus the platform fee), exact to the base unit. ' +
        'merchant_fee=0 is refused (400). The split is fixed with the wallet: the same address and callback with another split, ' +
        'affiliate or none get 409. ' +
        'Needs consent as affiliate.php does (403 affiliate_consent_required or affiliate_consent_invalid).',
      querystring: customAffiliateWalletQuery,
    }),
    async (request, reply) => {
      const outcome = await app.walletService.createOrGetCustomAffiliate(request.query, rateLimitClientOf(request.ip));
      return answerWallet(request, reply, outcome, 'custom affiliate wallet');
    },
  );
};
