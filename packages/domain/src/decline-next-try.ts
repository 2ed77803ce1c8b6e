import {
  chargeWithin,
  orderedRows,
  splitRecommended,
  stableGroups,
  type CheckoutRanking,
  type RankedRow,
  type RankingContext,
} from './checkout-ranking';
import type { DeclineKind } from './decline-kinds';
import type { PaymentMethod, RateTable } from './provider-terms';
import type { ProviderOption } from './provider-options';
import { secondChanceProviders } from './second-chance';

/**
 * How the second chance orders the remaining providers after a decline (issue 32), one rule per
 * kind of decline, as data: which rows go first, which are marked, and the sentence the customer
 * reads (what happened, what to try). Within each group the normal ranking's order is kept.
 */

/** What a row's facts say under a decline's rule: first, after them, or last and marked. */
export type NextTryFit = 'preferred' | 'neutral' | 'marked';

export interface DeclineNextTry {
  /** Which facts of a row put it first. */
  readonly prefers: 'wallet_or_bank_transfer' | 'lighter_checks' | 'limit_allows' | 'serves_country' | 'nothing';
  /** Why a row is marked, for the view model's words; absent where the rule marks none. */
  readonly marks?: 'over_maximum';
  /** The customer's sentence: a key for a view model's translations, and its English text. */
  readonly message: { readonly key: `decline.${DeclineKind}`; readonly text: string };
}

export const DECLINE_NEXT_TRY = {
  card_refused: {
    prefers: 'wallet_or_bank_transfer',
    message: {
      key: 'decline.card_refused',
      text: 'Your bank refused the card payment. Apple Pay, Google Pay or a bank transfer often work when a card does not: the providers offering them are listed first.',
    },
  },
  identity_failed: {
    prefers: 'lighter_checks',
    message: {
      key: 'decline.identity_failed',
      text: "The provider's identity check did not go through. The providers listed first ask for fewer checks at this amount.",
    },
  },
  over_limit: {
    prefers: 'limit_allows',
    marks: 'over_maximum',
    message: {
      key: 'decline.over_limit',
      text: "The amount is over that provider's limit. The providers listed first accept this amount.",
    },
  },
  country_unserved: {
    prefers: 'serves_country',
    message: {
      key: 'decline.country_unserved',
      text: 'That provider does not serve your country. The providers listed first do.',
    },
  },
  abandoned: {
    prefers: 'nothing',
    message: { key: 'decline.abandoned', text: 'The payment was not finished. You can pay with another provider below.' },
  },
  other: {
    prefers: 'nothing',
    message: { key: 'decline.other', text: 'The payment did not go through. You can pay with another provider below.' },
  },
} as const satisfies Record<DeclineKind, DeclineNextTry>;

const COUNTRY_FIT: Readonly<Record<RankedRow['servesCountry'], NextTryFit>> = { yes: 'preferred', unknown: 'neutral', no: 'marked' };

const WALLETS_AND_TRANSFERS: readonly PaymentMethod[] = ['apple_pay', 'google_pay', 'bank_transfer'];

/** How a row fits a rule, from its facts alone; `rates` compares limits in other currencies. */
export const NEXT_TRY_FIT: Readonly<Record<DeclineNextTry['prefers'], (row: RankedRow, rates: RateTable | undefined) => NextTryFit>> = {
  wallet_or_bank_transfer: (row) => (row.methods.some((method) => WALLETS_AND_TRANSFERS.includes(method)) ? 'preferred' : 'neutral'),
  lighter_checks: (row, rates) => {
    const limit = row.option.provider.lightChecksUpTo;
    return limit && chargeWithin(limit, row.option.charge, rates) === true ? 'preferred' : 'neutral';
  },
  limit_allows: (row, rates) => {
    const maximum = row.option.provider.maximum;
    if (!maximum) return 'neutral';
    const within = chargeWithin(maximum, row.option.charge, rates);
    return within === undefined ? 'neutral' : within ? 'preferred' : 'marked';
  },
  serves_country: (row) => COUNTRY_FIT[row.servesCountry],
  nothing: () => 'neutral',
};

const FIT_GROUP: Readonly<Record<NextTryFit, number>> = { preferred: 0, neutral: 1, marked: 2 };

export interface NextTryRow extends RankedRow {
  readonly fit: NextTryFit;
}

export interface SecondChanceRanking extends CheckoutRanking {
  readonly recommended: readonly NextTryRow[];
  readonly more: readonly NextTryRow[];
  readonly rule: DeclineNextTry;
}

/**
 * The second chance's rows after a decline of `kind`: the providers the order may still use
 * (secondChanceProviders: available, the failed one left out), in the normal ranking's order, then
 * regrouped by the decline's rule (preferred, neutral, marked), and split into recommended and more.
 */
export function rankSecondChance(
  options: readonly ProviderOption[],
  failedProvider: string,
  kind: DeclineKind,
  context: RankingContext & { readonly rates: RateTable | undefined },
): SecondChanceRanking {
  const rule: DeclineNextTry = DECLINE_NEXT_TRY[kind];
  const fit = NEXT_TRY_FIT[rule.prefers];
  const rows = orderedRows(secondChanceProviders(options, failedProvider), context).map(
    (row): NextTryRow => ({ ...row, fit: fit(row, context.rates) }),
  );
  const split = splitRecommended(stableGroups(rows, (row) => FIT_GROUP[row.fit]));
  return { recommended: split.recommended as NextTryRow[], more: split.more as NextTryRow[], rule };
}
