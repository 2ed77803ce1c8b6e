import type { MeasuredCheckouts } from './checkout-ranking';
import { attemptThatPaid, type AttributableDeposit, type PaymentAttempt } from './deposit-attribution';
import { invalidParameter } from './errors';

/**
 * What this gateway measured of each provider's recent checkouts (issue 32), for the ranking
 * (rankCheckoutOptions' `measured`): the attempts (payments given a checkout in the window), those
 * that reached USDC (a counted deposit into the order's wallet credited to the attempt by
 * attemptThatPaid, the rule the receipt and the status API credit deposits by), and the median
 * time from the checkout to the first such deposit.
 */

/** CHECKOUT_RANKING_WINDOW_DAYS: how far back the attempts the ranking measures go. */
export const CHECKOUT_RANKING_WINDOW_DAYS_SETTING = 'CHECKOUT_RANKING_WINDOW_DAYS';
export const DEFAULT_CHECKOUT_RANKING_WINDOW_DAYS = 30;
const MOST_RANKING_WINDOW_DAYS = 365;

/** Reads CHECKOUT_RANKING_WINDOW_DAYS: a whole number of days from 1 to 365. */
export function parseRankingWindowDays(input: string, param = CHECKOUT_RANKING_WINDOW_DAYS_SETTING): number {
  const value = /^\d{1,3}$/.test(input) ? Number(input) : Number.NaN;
  if (!(value >= 1 && value <= MOST_RANKING_WINDOW_DAYS)) {
    throw invalidParameter(
      param,
      `${param} must be a whole number of days from 1 to ${MOST_RANKING_WINDOW_DAYS} ` +
        `(default ${DEFAULT_CHECKOUT_RANKING_WINDOW_DAYS}); got "${input.slice(0, 20)}"`,
    );
  }
  return value;
}

/** One payment of an order, as attemptThatPaid reads it, with its provider and whether the window measures it. */
export interface MeasurableAttempt extends PaymentAttempt {
  provider: string;
  /** Given a checkout within the window: counted as an attempt. The order's other payments only compete for its deposits. */
  measured: boolean;
}

/** One order (one temporary wallet): its payments and its counted deposits. */
export interface OrderHistory {
  attempts: readonly MeasurableAttempt[];
  deposits: readonly AttributableDeposit[];
}

/** The measured attempts of every provider with at least one, over the orders given. */
export function measureCheckouts(orders: readonly OrderHistory[]): Map<string, MeasuredCheckouts> {
  const byProvider = new Map<string, { attempts: number; durationsMs: number[] }>();
  for (const order of orders) {
    const firstUsdc = firstCreditedDeposit(order);
    for (const attempt of order.attempts) {
      if (!attempt.measured) continue;
      const tally = byProvider.get(attempt.provider) ?? { attempts: 0, durationsMs: [] };
      tally.attempts += 1;
      const seenAt = firstUsdc.get(attempt.id);
      if (seenAt !== undefined) tally.durationsMs.push(Math.max(0, seenAt.getTime() - attempt.createdAt.getTime()));
      byProvider.set(attempt.provider, tally);
    }
  }
  const measured = new Map<string, MeasuredCheckouts>();
  for (const [provider, { attempts, durationsMs }] of byProvider) {
    const median = medianOf(durationsMs);
    measured.set(provider, {
      attempts,
      reachedUsdc: durationsMs.length,
      ...(median !== undefined ? { minutesToUsdc: Math.ceil(median / 60_000) } : {}),
    });
  }
  return measured;
}

/** When each attempt of the order was first credited a deposit. */
function firstCreditedDeposit(order: OrderHistory): Map<string, Date> {
  const first = new Map<string, Date>();
  for (const deposit of order.deposits) {
    const credited = attemptThatPaid(deposit, order.attempts);
    if (credited === null) continue;
    const earlier = first.get(credited);
    if (earlier === undefined || deposit.seenAt.getTime() < earlier.getTime()) first.set(credited, deposit.seenAt);
  }
  return first;
}

/** The middle value (the mean of the two middle ones for an even count); undefined for none. */
export function medianOf(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
