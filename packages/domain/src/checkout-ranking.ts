import { invalidParameter } from './errors';
import type { CurrencyCode } from './currencies';
import { convertToUsdMinorUnits, parseFiatAmount } from './money';
import type { AvailableProviderOption, ProviderCharge, ProviderOption } from './provider-options';
import { methodsFor, servesCountry, type CountryCode, type DocumentedAmount, type PaymentMethod, type RateTable } from './provider-terms';

/**
 * The order of the hosted checkout's rows (issue 32): the operator's order (the order providers are
 * offered in) is kept, except that providers with enough recent attempts here trade places among
 * the positions they hold, by measured conversion, then measured time to USDC, then cost. A
 * provider with fewer attempts never moves, so a small shop keeps its operator's order and no
 * provider is ranked on a handful of attempts. A customer's known country then puts the providers
 * that serve it first, those whose list the gateway cannot read next, and the others last (marked,
 * never hidden).
 */

/** CHECKOUT_RANKING_MIN_ATTEMPTS: recent attempts at this gateway before a provider's measured figures count. */
export const CHECKOUT_RANKING_MIN_ATTEMPTS_SETTING = 'CHECKOUT_RANKING_MIN_ATTEMPTS';
export const DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS = 100;
/** Below ten attempts a conversion rate says nothing (one success moves it ten points or more). */
const LEAST_RANKING_MIN_ATTEMPTS = 10;
const MOST_RANKING_MIN_ATTEMPTS = 1_000_000;

/** Reads CHECKOUT_RANKING_MIN_ATTEMPTS: a whole number from 10 to 1,000,000. */
export function parseRankingMinAttempts(input: string, param = CHECKOUT_RANKING_MIN_ATTEMPTS_SETTING): number {
  const value = /^\d{1,7}$/.test(input) ? Number(input) : Number.NaN;
  if (!(value >= LEAST_RANKING_MIN_ATTEMPTS && value <= MOST_RANKING_MIN_ATTEMPTS)) {
    throw invalidParameter(
      param,
      `${param} must be a whole number of attempts from ${LEAST_RANKING_MIN_ATTEMPTS} to ${MOST_RANKING_MIN_ATTEMPTS} ` +
        `(default ${DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS}); got "${input.slice(0, 20)}"`,
    );
  }
  return value;
}

/** The recommended rows: at least three (when there are), at most five; the rest go behind "more providers". */
export const RECOMMENDED_ROWS = { least: 3, most: 5 } as const;

/** What this gateway measured of a provider's recent checkouts (the caller chooses "recent"). */
export interface MeasuredCheckouts {
  /** Checkouts started with the provider. */
  readonly attempts: number;
  /** Of them, those whose USDC arrived. */
  readonly reachedUsdc: number;
  /** Usual minutes from the checkout to the USDC, of those that reached it (e.g. the median); absent without any. */
  readonly minutesToUsdc?: number;
}

/** What a customer loses to fees, in basis points of what they pay, and where the figure comes from. */
export interface CheckoutCost {
  readonly bps: number;
  readonly basis: 'quote' | 'documented_fees';
}

/**
 * The cost of a quote: the share of what the customer pays (USD cents) that does not reach the shop
 * (USDC base units, 6 decimals), in basis points rounded up; 0 when the quote gives at least as much.
 */
export function quotedCostBps(paysUsdCents: bigint, receivesUsdc: bigint): number {
  const paid = paysUsdCents * 10_000n;
  if (paid <= 0n) throw new Error('a quote must have the customer pay something');
  if (receivesUsdc >= paid) return 0;
  // A share, not an amount: whole basis points from 1 to 10,000, worked out in bigint and exact as a number.
  const bps = ((paid - receivesUsdc) * 10_000n + paid - 1n) / paid;
  return Number(bps);
}

export interface RankingContext {
  /** CHECKOUT_RANKING_MIN_ATTEMPTS. */
  readonly minAttempts: number;
  /** Measured checkouts by provider id; a provider without an entry has none. */
  readonly measured: ReadonlyMap<string, MeasuredCheckouts>;
  /** Quoted costs by provider id (quotedCostBps), where the caller has a quote; else the documented fees' middle. */
  readonly quotedCostBps?: ReadonlyMap<string, number>;
  /** The customer's country, when a trusted proxy told it. */
  readonly customerCountry?: CountryCode;
}

/** One row's facts, for a view model to word. */
export interface RankedRow {
  readonly option: AvailableProviderOption;
  /** Time to USDC: measured here once the provider has enough attempts, else its documented (or assumed) figure. */
  readonly timeToUsdc?: { readonly minutes: number; readonly basis: 'measured' | 'documented' | 'assumed'; readonly source?: string };
  /** The methods its widget offers for the currency it will charge. */
  readonly methods: readonly PaymentMethod[];
  readonly servesCountry: 'yes' | 'no' | 'unknown';
  /** Its measured conversion, once it has enough attempts to count. */
  readonly measured?: { readonly attempts: number; readonly reachedUsdc: number };
  readonly cost: CheckoutCost;
}

export interface CheckoutRanking {
  readonly recommended: readonly RankedRow[];
  readonly more: readonly RankedRow[];
}

/** Ranks the available options (providerOptions, or secondChanceProviders) for one order. */
export function rankCheckoutOptions(options: readonly ProviderOption[], context: RankingContext): CheckoutRanking {
  return splitRecommended(orderedRows(options, context));
}

/** The rows of `rankCheckoutOptions`, in order, before the split. */
export function orderedRows(options: readonly ProviderOption[], context: RankingContext): RankedRow[] {
  const rows = options
    .filter((option): option is AvailableProviderOption => option.status === 'available')
    .map((option) => rowOf(option, context));
  const counted = (row: RankedRow) => row.measured !== undefined;
  // The measured rows trade places among the positions they hold; the others stay where the operator put them.
  const slots = rows.flatMap((row, index) => (counted(row) ? [index] : []));
  const byMeasure = rows.filter(counted).sort(compareMeasured);
  const operatorOrder = [...rows];
  slots.forEach((slot, i) => {
    operatorOrder[slot] = byMeasure[i] as RankedRow;
  });
  return stableGroups(operatorOrder, (row) => COUNTRY_GROUP[row.servesCountry]);
}

const COUNTRY_GROUP = { yes: 0, unknown: 1, no: 2 } as const;

/**
 * The first rows recommended: up to five, stopping before a row marked as not serving the customer's
 * country once three are in; the rest behind the disclosure. Fewer than four rows are all recommended.
 */
export function splitRecommended(rows: readonly RankedRow[]): CheckoutRanking {
  let count = Math.min(rows.length, RECOMMENDED_ROWS.most);
  const firstUnserved = rows.findIndex((row) => row.servesCountry === 'no');
  if (firstUnserved !== -1 && firstUnserved < count) count = Math.max(firstUnserved, Math.min(rows.length, RECOMMENDED_ROWS.least));
  return { recommended: rows.slice(0, count), more: rows.slice(count) };
}

/** A stable sort by a small group number: order within a group is kept. */
export function stableGroups<T>(rows: readonly T[], group: (row: T) => number): T[] {
  return rows
    .map((row, index) => ({ row, index, group: group(row) }))
    .sort((a, b) => a.group - b.group || a.index - b.index)
    .map(({ row }) => row);
}

function rowOf(option: AvailableProviderOption, context: RankingContext): RankedRow {
  const provider = option.provider;
  const record = context.measured.get(provider.id);
  const counts = record !== undefined && record.attempts >= context.minAttempts;
  const documented = provider.timeToUsdc;
  const timeToUsdc =
    counts && record.minutesToUsdc !== undefined
      ? { minutes: record.minutesToUsdc, basis: 'measured' as const }
      : documented
        ? {
            minutes: documented.minutes,
            basis: documented.assumed ? ('assumed' as const) : ('documented' as const),
            source: documented.source,
          }
        : undefined;
  const quoted = context.quotedCostBps?.get(provider.id);
  return {
    option,
    ...(timeToUsdc ? { timeToUsdc } : {}),
    methods: methodsFor(provider, option.charge.currency),
    servesCountry: servesCountry(provider, context.customerCountry),
    ...(counts ? { measured: { attempts: record.attempts, reachedUsdc: Math.min(record.reachedUsdc, record.attempts) } } : {}),
    cost:
      quoted !== undefined
        ? { bps: quoted, basis: 'quote' }
        : { bps: Math.ceil((provider.fees.minBps + provider.fees.maxBps) / 2), basis: 'documented_fees' },
  };
}

/** Higher conversion first (compared exactly), then a shorter measured time (none: last), then the lower cost. */
function compareMeasured(a: RankedRow, b: RankedRow): number {
  const ma = a.measured as NonNullable<RankedRow['measured']>;
  const mb = b.measured as NonNullable<RankedRow['measured']>;
  const conversion = mb.reachedUsdc * ma.attempts - ma.reachedUsdc * mb.attempts;
  if (conversion !== 0) return conversion;
  const minutes = (row: RankedRow) => (row.timeToUsdc?.basis === 'measured' ? row.timeToUsdc.minutes : Number.POSITIVE_INFINITY);
  const time = minutes(a) - minutes(b);
  if (time !== 0 && !Number.isNaN(time)) return time;
  return a.cost.bps - b.cost.bps;
}

/**
 * Whether a charge is within a documented amount (a limit): compared in USD cents when the
 * currencies differ, with the gateway's rates; undefined when a rate is missing (the rule cannot tell).
 */
export function chargeWithin(limit: DocumentedAmount, charge: ProviderCharge, rates: RateTable | undefined): boolean | undefined {
  const limitUnits = parseFiatAmount(limit.amount, 'limit').minorUnits;
  if (limit.currency === charge.currency) return charge.amount.minorUnits <= limitUnits;
  const limitUsd = inUsd(limitUnits, limit.currency, rates);
  const chargeUsd = inUsd(charge.amount.minorUnits, charge.currency, rates);
  return limitUsd === undefined || chargeUsd === undefined ? undefined : chargeUsd <= limitUsd;
}

function inUsd(minorUnits: bigint, currency: CurrencyCode, rates: RateTable | undefined): bigint | undefined {
  if (currency === 'USD') return minorUnits;
  const rate = rates?.get(currency);
  return rate ? convertToUsdMinorUnits(minorUnits, rate) : undefined;
}
