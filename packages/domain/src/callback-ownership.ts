import { affiliateTermsConflict, sameAffiliateTerms, type AffiliateTerms } from './affiliate-terms';
import { GatewayError } from './errors';
import { sameAddress } from './evm-address';

/**
 * A callback URL (byte for byte) belongs to the first wallet registered with it. A signed callback
 * says "this order was paid": if a second wallet with another payout address could carry the same
 * URL, money paid to that wallet's owner would fire the shop's callback (issue 17). So the URL is
 * the wallet's identity: a request for it with the owner's payout address and terms gets the
 * owner's wallet back, anything else a 409. The database holds the rule too (a unique index on a
 * hash of the URL among wallets whose callback has not been released, migration 013); only the
 * operator frees a URL (release-callback in wallet-control).
 */
export interface WalletTerms {
  payoutAddress: string;
  affiliate: AffiliateTerms | null;
}

/** Why `requested` may not have the wallet that owns its callback URL, or undefined: it is a repeat of it. */
export function callbackOwnerRefusal(requested: WalletTerms, owner: WalletTerms): GatewayError | undefined {
  if (!sameAddress(requested.payoutAddress, owner.payoutAddress)) return callbackRegisteredElsewhere();
  // Same payout address, other terms: the owner's own 409, which says what the wallet has.
  if (!sameAffiliateTerms(requested.affiliate, owner.affiliate)) return affiliateTermsConflict(owner.affiliate);
  return undefined;
}

/** The 409 for a callback URL that another payout address holds. Says nothing of that wallet. */
export function callbackRegisteredElsewhere(): GatewayError {
  return new GatewayError(
    'callback_registered_elsewhere',
    'this callback URL is already registered to a wallet with another payout address. A callback URL belongs to the first wallet registered with it, ' +
      'so that no payment to another wallet can ever fire it. Use a new callback URL (e.g. another order id); ' +
      'if this URL is yours and the other wallet is not, the gateway operator can release it',
    'callback',
  );
}
