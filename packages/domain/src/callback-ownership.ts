import { createHash } from 'node:crypto';
import { affiliateTermsConflict, sameAffiliateTerms, type AffiliateTerms } from './affiliate-terms';
import { callbackOriginPath } from './callback-url';
import { GatewayError } from './errors';
import { sameAddress } from './evm-address';

/**
 * Who may have a wallet on a callback. A signed callback says "this order was paid": if a wallet
 * with another payout address (or other terms) could carry the shop's callback, money paid to
 * that wallet would fire the shop's callback (issue 17). Two bindings hold it:
 *  - the URL byte for byte belongs to the first wallet registered with it (migration 013): a
 *    repeat with that wallet's payout address and terms gets it back, anything else a 409;
 *  - with CALLBACK_OWNERSHIP=path (the default), the callback's origin and path
 *    (callbackOriginPath) belong to the payout address and terms that first registered a wallet
 *    on them (migration 017), since a shop reads `?order=X&x=1` as order X (issue 22): the same
 *    payout and terms get a new wallet for each new URL on that path, anything else a 409
 *    whatever the query says. `shared` lets sellers with different payout addresses share one
 *    callback path (a marketplace), which only a gateway that pins its payouts should allow.
 * Only the operator frees a URL or a path (gateway callbacks release).
 */
export interface WalletTerms {
  payoutAddress: string;
  affiliate: AffiliateTerms | null;
}

export type CallbackOwnership = 'path' | 'shared';

/** What a new wallet's callback path is bound to (CALLBACK_OWNERSHIP=path); null with `shared`. */
export interface CallbackPathBinding {
  /** sha256 of the canonical origin and path: the key of the binding. */
  key: Buffer;
  /** The canonical origin and path, for the operator (gateway callbacks release --list). */
  path: string;
  /** walletTermsKey of the wallet's terms: every live wallet on the path has these. */
  terms: string;
}

export function callbackPathBinding(callbackUrl: string, terms: WalletTerms): CallbackPathBinding {
  const path = callbackOriginPath(callbackUrl);
  return { key: callbackPathKey(path), path, terms: walletTermsKey(terms) };
}

/** The key of a canonical origin and path (callbackOriginPath), as callback_paths stores it. */
export function callbackPathKey(originPath: string): Buffer {
  return createHash('sha256').update(originPath).digest();
}

/**
 * The terms as one text, equal for terms a repeat may have (sameAffiliateTerms): the payout
 * address, and the affiliate with the custom split, lower case. affiliate.php's share is not in
 * it: a request names no share, and a wallet keeps the one it was created with.
 */
export function walletTermsKey(terms: WalletTerms): string {
  const payout = terms.payoutAddress.toLowerCase();
  const affiliate = terms.affiliate;
  if (affiliate === null) return payout;
  const split = affiliate.kind === 'custom' ? ` split ${affiliate.merchantFeeBps}/${affiliate.affiliateFeeBps}` : '';
  return `${payout} affiliate ${affiliate.address.toLowerCase()}${split}`;
}

/** Why `requested` may not have the wallet that owns its callback URL (or path), or undefined: it is a repeat of it. */
export function callbackOwnerRefusal(requested: WalletTerms, owner: WalletTerms): GatewayError | undefined {
  if (!sameAddress(requested.payoutAddress, owner.payoutAddress)) return callbackRegisteredElsewhere();
  // Same payout address, other terms: the owner's own 409, which says what the wallet has.
  if (!sameAffiliateTerms(requested.affiliate, owner.affiliate)) return affiliateTermsConflict(owner.affiliate);
  return undefined;
}

/** The 409 for a callback URL, or its origin and path, that another payout address holds. Says nothing of that wallet. */
export function callbackRegisteredElsewhere(): GatewayError {
  return new GatewayError(
    'callback_registered_elsewhere',
    'this callback URL (or another URL with the same origin and path: the query does not count) is already registered to a wallet ' +
      'with another payout address. ' +
      'A callback belongs to the first wallet registered with it, so that no payment to another wallet can ever fire it. ' +
      'Use a callback URL on another path; if this one is yours and the other wallet is not, the gateway operator can release it',
    'callback',
  );
}
