import cardValidator from 'card-validator';
import luhn10 from 'card-validator/dist/luhn-10';
import type { DeclineKind } from '@gateway/domain';

/** What the customer typed; absent fields are empty strings. */
export interface CardInput {
  name: string;
  number: string;
  expiry: string;
  cvc: string;
}

export type CardField = keyof CardInput;
export type CardErrors = Partial<Record<CardField, string>>;

/**
 * How a well-formed card fares at the simulated issuer. `short`: approved, but the provider delivers
 * only SHORT_DELIVERY_PERCENT of the USDC (an underpaid order, to try the gateway's rest payment).
 * The refusals after `insufficient_funds` each stand for one kind of decline (DECLINE_KIND_OF), so
 * the second chance's ordering by kind can be tried on a local stack.
 */
export type CardOutcome =
  | 'approved'
  | 'short'
  | 'declined'
  | 'insufficient_funds'
  | 'identity_failed'
  | 'over_limit'
  | 'country_unserved'
  | 'abandoned'
  | 'provider_error'
  | 'not_a_test_card';

export type RefusedCardOutcome = Exclude<CardOutcome, 'approved' | 'short'>;

/** The share of the order's USDC the `short` test card delivers. */
export const SHORT_DELIVERY_PERCENT = 40n;

export type CardCheck = { ok: true; outcome: CardOutcome } | { ok: false; errors: CardErrors };

export interface TestCard {
  number: string;
  outcome: Exclude<CardOutcome, 'not_a_test_card'>;
  description: string;
}

/** The cards the sandbox knows, shown on the page; any other valid number is declined. */
export const TEST_CARDS: readonly TestCard[] = [
  { number: '4242 4242 4242 4242', outcome: 'approved', description: 'pays' },
  { number: '4000 0000 0000 0077', outcome: 'short', description: `pays, but only ${SHORT_DELIVERY_PERCENT} % of the USDC arrives` },
  { number: '4000 0000 0000 0002', outcome: 'declined', description: 'is declined' },
  { number: '4000 0000 0000 9995', outcome: 'insufficient_funds', description: 'has insufficient funds' },
  { number: '4000 0000 0000 0101', outcome: 'identity_failed', description: 'fails the identity check' },
  { number: '4000 0000 0000 0200', outcome: 'over_limit', description: 'is over the purchase limit' },
  { number: '4000 0000 0000 0309', outcome: 'country_unserved', description: 'is from a country the provider does not serve' },
  { number: '4000 0000 0000 0408', outcome: 'abandoned', description: "is abandoned at the bank's check (the customer cancels)" },
  { number: '4000 0000 0000 0507', outcome: 'provider_error', description: 'fails at the provider without a reason' },
];

/** Customer-facing words for each refusal: shown on the page and sent as the webhook's reason. */
export const DECLINE_MESSAGES: Record<RefusedCardOutcome, string> = {
  declined: 'Your card was declined. Try another card.',
  insufficient_funds: 'Your card has insufficient funds.',
  identity_failed: 'We could not verify your identity.',
  over_limit: 'This purchase is over your limit here.',
  country_unserved: 'This checkout is not available in your country.',
  abandoned: 'The payment was cancelled before it was authorised.',
  provider_error: 'The payment could not be completed.',
  not_a_test_card: 'Your card was declined: this is a test checkout, so use one of the test cards below.',
};

/**
 * What the sandbox reports of each refusal: the webhook's status and the kind of its reason (the kinds
 * of @gateway/domain's decline-kinds.ts, the sandbox's documented failure reasons). A card refused, by
 * its issuer or the sandbox's checks, is `declined`; the customer leaving or the provider failing is `failed`.
 */
export const REFUSAL_REPORT: Record<RefusedCardOutcome, { status: 'declined' | 'failed'; declineKind: DeclineKind }> = {
  declined: { status: 'declined', declineKind: 'card_refused' },
  insufficient_funds: { status: 'declined', declineKind: 'card_refused' },
  not_a_test_card: { status: 'declined', declineKind: 'card_refused' },
  identity_failed: { status: 'declined', declineKind: 'identity_failed' },
  over_limit: { status: 'declined', declineKind: 'over_limit' },
  country_unserved: { status: 'declined', declineKind: 'country_unserved' },
  abandoned: { status: 'failed', declineKind: 'abandoned' },
  provider_error: { status: 'failed', declineKind: 'other' },
};

const OUTCOME_BY_NUMBER = new Map(TEST_CARDS.map((card) => [digitsOf(card.number), card.outcome]));
const MAX_NAME_LENGTH = 100;

/** Validates the form's card fields and, when they are well formed, decides the simulated outcome. */
export function checkCard(input: CardInput, now = new Date()): CardCheck {
  const errors: CardErrors = {};
  const name = input.name.trim();
  if (name === '') errors.name = 'Enter the name on the card.';
  else if (name.length > MAX_NAME_LENGTH) errors.name = `The name on the card can have at most ${MAX_NAME_LENGTH} characters.`;

  const number = digitsOf(input.number);
  if (number === '') errors.number = 'Enter the card number.';
  else if (!isWellFormedNumber(number)) errors.number = 'This card number is not valid. Check it and try again.';

  const expiry = input.expiry.trim();
  if (expiry === '') errors.expiry = 'Enter the expiry date (MM/YY).';
  else if (!cardValidator.expirationDate(expiry).isValid) errors.expiry = expiryProblem(expiry, now);

  const cvc = input.cvc.trim();
  if (!cardValidator.cvv(cvc, [3, 4]).isValid) errors.cvc = 'Enter the 3 or 4 digit security code (CVC).';

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, outcome: OUTCOME_BY_NUMBER.get(number) ?? 'not_a_test_card' };
}

// Spaces and dashes are how people copy card numbers; anything else makes the number invalid.
function digitsOf(value: string): string {
  return value.replace(/[\s-]/g, '');
}

function isWellFormedNumber(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  const verdict = cardValidator.number(digits);
  // A known brand has its own lengths; an unknown one is judged by the Luhn check alone.
  return verdict.card ? verdict.isValid : luhn10(digits);
}

/** card-validator says only "invalid"; the customer needs to know whether the card expired. */
function expiryProblem(expiry: string, now: Date): string {
  const match = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(expiry);
  const month = Number(match?.[1]);
  const year = match?.[2]?.length === 2 ? 2000 + Number(match[2]) : Number(match?.[2]);
  if (month >= 1 && month <= 12) {
    const current = now.getFullYear() * 12 + now.getMonth() + 1;
    if (year * 12 + month < current) return 'This card has expired.';
  }
  return 'Enter the expiry date as MM/YY, for example 04/29.';
}
