import {
  formatMinorUnits,
  type CountryCode,
  type NextTryRow,
  type PaymentMethod,
  type RankedRow,
  type SecondChanceRanking,
} from '@gateway/domain';
import type { RowQuote } from '../../services/checkout-rows';

/**
 * One provider row of the hosted checkout and of the second chance, in the customer's words (issue
 * 32): what they pay, what the shop receives, how they can pay, how long the USDC takes, and what
 * to know before choosing it.
 */
export interface ProviderRowView {
  id: string;
  name: string;
  /** What the customer pays: the quote's total, or the amount the provider charges. */
  amount: string;
  currency: string;
  /** The order's own amount, when the provider charges it converted to USD, e.g. "49.99 EUR". */
  orderAmount?: string;
  /**
   * Under a quoted amount: "Fees included", or "The order plus fees" when the fees are on top; under a
   * fees-on-top estimate: "About: the order plus fees (estimated from its published fees)" (a
   * fees-inside estimate's fees come out of what the shop receives, said there).
   */
  amountNote?: string;
  /**
   * Which way the fees go, and what the shop receives: "Fees on top: the shop receives 50.00 USDC"
   * (the order's full value), "The shop receives 47.12 USDC" (a quote: its amount's note already
   * says the fees are inside), "Fees included: the shop receives about 48.73 USDC (estimated from its
   * published fees)"; absent when the charge cannot be valued (no rate).
   */
  receives?: string;
  /** "Card, Apple Pay, Google Pay"; absent when the provider documents none for this currency. */
  methods?: string;
  /** "USDC in about 10 minutes (per MoonPay)". */
  time?: string;
  /** Why the second chance lists it first, e.g. "Pay with Apple Pay or Google Pay". */
  preferred?: string;
  /** What to know before choosing it: not serving the customer's country, over its limit. */
  warning?: string;
}

const METHOD_WORDS: Readonly<Record<PaymentMethod, string>> = {
  card: 'Card',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  bank_transfer: 'Bank transfer',
  paypal: 'PayPal',
};

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region' });

/** "Germany" for DE; the code itself where the name is not known. */
export function countryName(country: CountryCode): string {
  try {
    return REGIONS.of(country) ?? country;
  } catch {
    return country;
  }
}

/** A row's words; `orderAmount`: the order as the customer knows it ("49.99 EUR"), said beside a USD conversion. */
export function providerRowView(
  row: RankedRow,
  price: RowQuote | undefined,
  orderAmount: string,
  country: CountryCode | undefined,
): ProviderRowView {
  const { provider, charge, converted } = row.option;
  const quoted = price?.basis === 'quote';
  // Fees on top: the customer pays more than the order, quoted or estimated; either way the total is shown.
  const onTop = price?.feesOnTop !== undefined;
  const shown = quoted || onTop;
  return {
    id: provider.id,
    name: provider.displayName,
    amount: shown ? price!.total : charge.amount.text,
    currency: shown ? price!.currency : charge.currency,
    ...(converted ? { orderAmount } : {}),
    ...(amountNoteOf(quoted, onTop) ?? {}),
    ...(price ? { receives: receivesWords(price) } : {}),
    ...(row.methods.length > 0 ? { methods: row.methods.map((method) => METHOD_WORDS[method]).join(', ') } : {}),
    ...(row.timeToUsdc ? { time: timeWords(row.timeToUsdc, provider.displayName) } : {}),
    ...(row.servesCountry === 'no' && country ? { warning: `May not serve customers in ${countryName(country)}` } : {}),
  };
}

/**
 * Under the amount: what it holds. A fees-on-top row's amount is the order plus the provider's fees
 * (its fact line says the shop receives the order's full value); a quoted row's has the fees inside.
 */
function amountNoteOf(quoted: boolean, onTop: boolean): { amountNote: string } | undefined {
  if (onTop) return { amountNote: quoted ? 'The order plus fees' : 'About: the order plus fees (estimated from its published fees)' };
  return quoted ? { amountNote: 'Fees included' } : undefined;
}

function receivesWords(price: RowQuote): string {
  if (price.feesOnTop) return `Fees on top: the shop receives ${usdcCents(price.feesOnTop.orderUsdc)} USDC`;
  const usdc = usdcCents(price.usdc);
  return price.basis === 'quote'
    ? `The shop receives ${usdc} USDC`
    : `Fees included: the shop receives about ${usdc} USDC (estimated from its published fees)`;
}

/** USDC to the cent, rounded down: a shop is never told it receives more than it will. */
function usdcCents(baseUnits: bigint): string {
  return formatMinorUnits(baseUnits / 10_000n);
}

const TIME_BASIS: Readonly<Record<NonNullable<RankedRow['timeToUsdc']>['basis'], (name: string) => string>> = {
  measured: () => 'measured here',
  documented: (name) => `per ${name}`,
  assumed: () => 'typical',
};

function timeWords(time: NonNullable<RankedRow['timeToUsdc']>, name: string): string {
  return `USDC in about ${duration(time.minutes)} (${TIME_BASIS[time.basis](name)})`;
}

/** "1 minute", "25 minutes", "3 hours", "2 days": a customer's scale, rounded to the nearest unit. */
export function duration(minutes: number): string {
  const unit = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  if (minutes < 90) return unit(Math.max(1, Math.round(minutes)), 'minute');
  if (minutes < 48 * 60) return unit(Math.round(minutes / 60), 'hour');
  return unit(Math.round(minutes / (24 * 60)), 'day');
}

/** Why the second chance's rule puts a row first, from the row's own facts. */
export function preferredWords(rule: SecondChanceRanking['rule'], row: NextTryRow, country: CountryCode | undefined): string | undefined {
  if (row.fit !== 'preferred') return undefined;
  switch (rule.prefers) {
    case 'wallet_or_bank_transfer': {
      const wallets = row.methods
        .filter((method) => method === 'apple_pay' || method === 'google_pay')
        .map((method) => METHOD_WORDS[method]);
      const transfer = row.methods.includes('bank_transfer');
      if (wallets.length === 0) return 'Pay by bank transfer';
      return `Pay with ${wallets.join(' or ')}${transfer ? ', or by bank transfer' : ''}`;
    }
    case 'lighter_checks':
      return 'Lighter identity checks for this amount';
    case 'limit_allows': {
      const maximum = row.option.provider.maximum;
      return maximum ? `Takes this amount (up to ${maximum.amount} ${maximum.currency})` : 'Takes this amount';
    }
    case 'serves_country':
      return country ? `Serves customers in ${countryName(country)}` : 'Serves your country';
    case 'nothing':
      return undefined;
    default:
      return unhandled(rule.prefers);
  }
}

/** What the rule marks a row for, from its facts: over its documented limit. */
export function markedWords(rule: SecondChanceRanking['rule'], row: NextTryRow): string | undefined {
  if (row.fit !== 'marked' || rule.marks !== 'over_maximum') return undefined;
  const maximum = row.option.provider.maximum;
  return maximum ? `This amount is over its limit of ${maximum.amount} ${maximum.currency}` : undefined;
}

function unhandled(prefers: never): never {
  throw new Error(`next-try rule ${String(prefers)} has no words`);
}
