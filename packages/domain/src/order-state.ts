import type { CurrencyCode } from './currencies';
import { invalidParameter } from './errors';
import { BASIS_POINTS_SCALE, splitWalletDeposit, type WalletFeeTerms } from './fee-split';
import { convertToUsdMinorUnits, type ExactRate, type FiatAmount, formatUsdc } from './money';

/**
 * The order: a wallet is one order, and each Process Payment attempt on it records what it should
 * bring. This file holds the one rule that compares what arrived with that expectation; every
 * reader (callbacks, the status API, the receipt page, the ledger, metrics) classifies through it.
 */

/** What an order is, as the merchant, the customer and the operator are told. */
export type OrderState = 'awaiting' | 'paid' | 'underpaid' | 'overpaid' | 'late';
export const ORDER_STATES: readonly OrderState[] = ['awaiting', 'paid', 'underpaid', 'overpaid', 'late'];

/**
 * The states in which the shop has its money and the order counts as paid wherever one word must
 * say it (payment-status.php's `status`): an underpaid order is not, nor is a late one (it may have
 * been cancelled meanwhile; the merchant decides).
 */
export const PAID_ORDER_STATES: readonly OrderState[] = ['paid', 'overpaid'];

/** Where an expectation's USDC figure comes from: the provider's own quote, or its documented fees (an estimate). */
export type ExpectationBasis = 'quote' | 'estimate';

/** A provider's documented fee range for a card purchase, basis points of the order's USD value. */
export interface DocumentedFees {
  readonly minBps: number;
  readonly maxBps: number;
}

/**
 * What a quote's figure may drift by before the purchase: the rate moves between the quote and the
 * card being charged, and network fees are priced at that moment.
 */
export const QUOTED_TOLERANCE_BPS = 100;
/** The widest tolerance an operator or a merchant may set: beyond half, "paid" would mean little. */
export const MAX_ORDER_TOLERANCE_BPS = 5_000;
/** How long after its provider order is created a deposit still belongs to the order (ORDER_WINDOW_HOURS). */
export const DEFAULT_ORDER_WINDOW_HOURS = 24;

/** The USDC an attempt should bring, and how far from it still counts as paid. */
export interface UsdcExpectation {
  /** USDC (base units) the provider should deliver into the wallet. */
  usdc: bigint;
  basis: ExpectationBasis;
  /** How far (basis points of `usdc`) the sum may fall short or run over and still be `paid`. */
  toleranceBps: number;
}

/**
 * The USDC an attempt should bring: the provider's quote where it gave one, else the order's USD
 * value less the middle of the provider's documented fee range, marked as an estimate. The
 * tolerance is the operator's when set (ORDER_TOLERANCE_BPS); otherwise a quote's drift, widened for
 * an estimate by half the documented range (the provider may charge anywhere in it).
 */
export function expectUsdc(input: {
  /** The order's value in USD cents at the attempt's rate. */
  usdCents: bigint;
  fees: DocumentedFees;
  /** USDC base units the provider's quote promised, when it gave one. */
  quotedUsdc?: bigint;
  /**
   * Fees on top (fee-payer.ts): the USDC the checkout asked the provider to deliver. The order
   * should bring exactly that, so it is judged as a quote is (the quote is not asked).
   */
  fixedUsdc?: bigint;
  /** ORDER_TOLERANCE_BPS; undefined: derived from the fee range. */
  operatorToleranceBps?: number;
}): UsdcExpectation {
  assertFees(input.fees);
  const spreadHalf = Math.ceil((input.fees.maxBps - input.fees.minBps) / 2);
  if (input.fixedUsdc !== undefined && input.fixedUsdc > 0n) {
    return { usdc: input.fixedUsdc, basis: 'quote', toleranceBps: input.operatorToleranceBps ?? QUOTED_TOLERANCE_BPS };
  }
  if (input.quotedUsdc !== undefined && input.quotedUsdc > 0n) {
    return { usdc: input.quotedUsdc, basis: 'quote', toleranceBps: input.operatorToleranceBps ?? QUOTED_TOLERANCE_BPS };
  }
  const grossUsdc = input.usdCents * 10_000n;
  const middleFeeBps = BigInt(input.fees.minBps + input.fees.maxBps);
  // The middle fee is (min + max) / 2 basis points: doubled scale keeps the division exact until the end.
  const usdc = (grossUsdc * (2n * BigInt(BASIS_POINTS_SCALE) - middleFeeBps)) / (2n * BigInt(BASIS_POINTS_SCALE));
  return { usdc, basis: 'estimate', toleranceBps: input.operatorToleranceBps ?? QUOTED_TOLERANCE_BPS + spreadHalf };
}

/** What an attempt records when it is made: the order's USD value, what it should bring, and until when. */
export interface AttemptExpectation extends UsdcExpectation {
  usdCents: bigint;
  windowEndsAt: Date;
}

/**
 * The expectation of a Process Payment attempt: the order in USD at the rate of the moment (USD is
 * the amount itself; another currency needs its rate), what the provider should deliver of it
 * (expectUsdc), and the window its USDC may arrive in, counted from now: the provider order is
 * created with the attempt, and a first purchase with identity checks can take hours.
 */
export function attemptExpectation(input: {
  amount: FiatAmount;
  currency: CurrencyCode;
  /** Units of the currency per 1 USD; required for any currency but USD. */
  rate?: ExactRate;
  fees: DocumentedFees;
  quotedUsdc?: bigint;
  operatorToleranceBps?: number;
  now: Date;
  windowHours: number;
  /** Fees on top: the USDC for the order's value in USD cents (checkoutAmountOf), fixed at the provider; undefined, fees inside. */
  fixedUsdcFor?: (usdCents: bigint) => bigint | undefined;
}): AttemptExpectation {
  let usdCents = input.amount.minorUnits;
  if (input.currency !== 'USD') {
    if (input.rate === undefined) throw new RangeError(`an order in ${input.currency} needs its rate to be valued in USD`);
    usdCents = convertToUsdMinorUnits(input.amount.minorUnits, input.rate);
  }
  const fixedUsdc = input.fixedUsdcFor?.(usdCents);
  const expected = expectUsdc({
    usdCents,
    fees: input.fees,
    ...(fixedUsdc !== undefined ? { fixedUsdc } : {}),
    ...(input.quotedUsdc !== undefined ? { quotedUsdc: input.quotedUsdc } : {}),
    ...(input.operatorToleranceBps !== undefined ? { operatorToleranceBps: input.operatorToleranceBps } : {}),
  });
  return { ...expected, usdCents, windowEndsAt: orderWindowEndsAt(input.now, input.windowHours) };
}

/** The end of an attempt's window: ORDER_WINDOW_HOURS after its provider order is created. */
export function orderWindowEndsAt(createdAt: Date, windowHours: number): Date {
  return new Date(createdAt.getTime() + windowHours * 3_600_000);
}

/** The tolerance an order is judged with: the attempt's, narrowed by the merchant's per-wallet one when it gave one. */
export function orderToleranceBps(attemptBps: number, walletBps: number | null | undefined): number {
  return walletBps === null || walletBps === undefined ? attemptBps : Math.min(attemptBps, walletBps);
}

/**
 * Reads a tolerance in basis points (`ORDER_TOLERANCE_BPS`, Create Wallet's `order_tolerance_bps`):
 * an integer from 0 to 5000 (50 %). Anything else is refused, naming the parameter.
 */
export function parseToleranceBps(input: string, param: string): number {
  if (!/^\d{1,5}$/.test(input) || Number(input) > MAX_ORDER_TOLERANCE_BPS) {
    throw invalidParameter(
      param,
      `${param} must be a whole number of basis points from 0 to ${MAX_ORDER_TOLERANCE_BPS} (100 = 1 %), e.g. 150; got "${input.slice(0, 20)}"`,
    );
  }
  return Number(input);
}

/** The order's expectation: its latest attempt's, with the window its deposits must arrive in. */
export interface OrderExpectation extends UsdcExpectation {
  /** When the attempt's provider order was created plus the order window: a deposit after it is late. */
  windowEndsAt: Date;
}

/** A deposit into the order's wallet that the chain made final (orphaned and unconfirmed ones are not counted). */
export interface OrderDeposit {
  amount: bigint;
  /** When the gateway first saw it on chain. */
  seenAt: Date;
}

export interface OrderClassification {
  state: OrderState;
  /** The sum of the order's final deposits, late ones included. */
  totalUsdc: bigint;
  /** What the order should bring. */
  expectedUsdc: bigint;
  /** What is missing for `paid` to be exact (expected − total), when underpaid. */
  missingUsdc: bigint;
  /** What arrived beyond the expectation (total − expected), when overpaid. */
  excessUsdc: bigint;
  /** The part of the total that arrived after the window. */
  lateUsdc: bigint;
  /** Why, in a sentence for an operator or a merchant's support. */
  readonly reason: string;
}

/**
 * Classifies an order from its final deposits against its expectation:
 * - `awaiting`: nothing final has arrived yet;
 * - `late`: some USDC arrived after the order's window (the merchant decides: the order may be cancelled);
 * - `underpaid` / `overpaid`: the sum is more than the tolerance short of / over the expectation;
 * - `paid`: the sum is within the tolerance of the expectation.
 * An order whose attempts recorded no expectation (opened before orders had one, or paid without
 * Process Payment) has no state: its readers show what arrived and compare nothing.
 */
export function classifyOrder(deposits: readonly OrderDeposit[], expectation: OrderExpectation): OrderClassification {
  const totalUsdc = deposits.reduce((sum, deposit) => sum + deposit.amount, 0n);
  const expectedUsdc = expectation.usdc;
  const lateUsdc = deposits
    .filter((deposit) => deposit.seenAt.getTime() > expectation.windowEndsAt.getTime())
    .reduce((sum, deposit) => sum + deposit.amount, 0n);
  const figures = {
    totalUsdc,
    expectedUsdc,
    missingUsdc: totalUsdc < expectedUsdc ? expectedUsdc - totalUsdc : 0n,
    excessUsdc: totalUsdc > expectedUsdc ? totalUsdc - expectedUsdc : 0n,
    lateUsdc,
  };
  // The sentences are worded when read (getters): the ledger judges a month of orders and words none.
  const expected = () =>
    `${formatUsdc(expectedUsdc)} USDC expected (${expectation.basis === 'quote' ? "the provider's quote" : 'an estimate from its documented fees'})`;
  if (totalUsdc === 0n) {
    return {
      state: 'awaiting',
      ...figures,
      missingUsdc: expectedUsdc,
      get reason() {
        return `nothing has arrived yet; ${expected()}`;
      },
    };
  }
  if (lateUsdc > 0n) {
    return {
      state: 'late',
      ...figures,
      get reason() {
        return `${formatUsdc(lateUsdc)} of ${formatUsdc(totalUsdc)} USDC arrived after the order's window closed (${expectation.windowEndsAt.toISOString()}); ${expected()}`;
      },
    };
  }
  const slack = (expectedUsdc * BigInt(expectation.toleranceBps)) / BigInt(BASIS_POINTS_SCALE);
  const allowed = () => `${expectation.toleranceBps} basis points`;
  if (totalUsdc < expectedUsdc - slack) {
    return {
      state: 'underpaid',
      ...figures,
      get reason() {
        return `${formatUsdc(totalUsdc)} USDC arrived, ${formatUsdc(figures.missingUsdc)} short of ${expected()}, more than the ${allowed()} allowed`;
      },
    };
  }
  if (totalUsdc > expectedUsdc + slack) {
    return {
      state: 'overpaid',
      ...figures,
      get reason() {
        return `${formatUsdc(totalUsdc)} USDC arrived, ${formatUsdc(figures.excessUsdc)} over ${expected()}, more than the ${allowed()} allowed`;
      },
    };
  }
  return {
    state: 'paid',
    ...figures,
    missingUsdc: 0n,
    excessUsdc: 0n,
    get reason() {
      return `${formatUsdc(totalUsdc)} USDC arrived, within ${allowed()} of ${expected()}`;
    },
  };
}

/** What a reader knows of an order: its latest attempt's expectation, the merchant's own tolerance, and its final deposits. */
export interface OrderFacts {
  /** Undefined when no attempt of the wallet recorded one. */
  expectation?: OrderExpectation;
  /** Create Wallet's order_tolerance_bps; null when the merchant gave none. */
  walletToleranceBps: number | null;
  deposits: readonly OrderDeposit[];
}

/** Where an order stands: what arrived, and, when an attempt recorded what it should bring, its judgement. */
export interface OrderStanding {
  totalUsdc: bigint;
  judged?: OrderClassification;
}

/** The order as every reader tells it: its facts judged by classifyOrder with the tolerance narrowed by the merchant's. */
export function orderStanding(facts: OrderFacts): OrderStanding {
  const totalUsdc = facts.deposits.reduce((sum, deposit) => sum + deposit.amount, 0n);
  if (facts.expectation === undefined) return { totalUsdc };
  const toleranceBps = orderToleranceBps(facts.expectation.toleranceBps, facts.walletToleranceBps);
  return { totalUsdc, judged: classifyOrder(facts.deposits, { ...facts.expectation, toleranceBps }) };
}

/** What each party would receive of an order's expected USDC, by its wallet's recorded terms (the ledger's expected shares). */
export interface ExpectedShares {
  merchant: bigint;
  platform: bigint;
  affiliate: bigint;
}

/**
 * The order's expectation divided as settlement would divide a deposit of exactly that amount
 * (splitWalletDeposit, the wallet's recorded fees): what the merchant should receive if the order
 * is paid as expected. An expectation of nothing shares nothing.
 */
export function orderExpectedShares(expectedUsdc: bigint, terms: WalletFeeTerms): ExpectedShares {
  if (expectedUsdc === 0n) return { merchant: 0n, platform: 0n, affiliate: 0n };
  const split = splitWalletDeposit(expectedUsdc, terms);
  return { merchant: split.merchant, platform: split.platformFee, affiliate: split.affiliateFee };
}

function assertFees(fees: DocumentedFees): void {
  const ok = (bps: number) => Number.isInteger(bps) && bps >= 0 && bps < BASIS_POINTS_SCALE;
  if (!ok(fees.minBps) || !ok(fees.maxBps) || fees.minBps > fees.maxBps) {
    throw new RangeError(`documented fees must be basis points with min <= max, got ${fees.minBps}..${fees.maxBps}`);
  }
}
