import {
  checkoutAmountOf,
  convertToUsdMinorUnits,
  DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS,
  expectUsdc,
  feesOnTopEstimate,
  formatMinorUnits,
  type FeePayer,
  type WalletFeeTerms,
  parseFiatAmount,
  quotedCostBps,
  stableGroups,
  type AvailableProviderOption,
  type CountryCode,
  type CurrencyCode,
  type CustomerLocation,
  type FiatAmount,
  type MeasuredCheckouts,
  type ProviderOption,
  type RankingContext,
  type RateTable,
} from '@gateway/domain';

/**
 * What a row of the hosted checkout or the second chance costs and brings (issue 32): the
 * provider's quote where a quote service answers, else the estimate Process Payment makes from the
 * provider's documented fees (expectUsdc); with fees on top, for the fixed USDC Process Payment asks. The ports below are what the page needs of the quote
 * and checkout-signal services; without them it ranks on the operator's order and documented fees.
 */

/** One provider's price for one order. */
export interface RowQuote {
  provider: string;
  /** `quote`: the provider's own figures; `estimate`: the order amount, fees taken from what the shop receives. */
  basis: 'quote' | 'estimate';
  /** USDC base units the shop's wallet receives. */
  usdc: bigint;
  /** What the customer pays, fees included, in `currency` (a decimal string; an estimate of fees inside: the order amount). */
  total: string;
  currency: CurrencyCode;
  quotedAt?: Date;
  /** Fees on top (fee-payer.ts): `usdc` is the fixed amount bought, of which the shop receives the order's value, `orderUsdc`. */
  feesOnTop?: { readonly orderUsdc: bigint };
}

/** The order a provider is asked to quote: what it would charge, in the currency it charges. */
export interface QuoteOrder {
  provider: string;
  amount: FiatAmount;
  currency: CurrencyCode;
  /** Fees on top: the USDC to buy (priced instead of the amount) and the order's value in USDC it carries. */
  feesOnTop?: { usdc: bigint; orderUsdc: bigint };
  /** Where the customer is, when known: what a provider that prices per location is asked for. */
  location?: CustomerLocation;
}

/** Who pays the order's fees, and the wallet's fee terms the USDC is grossed up for (the hosted checkout's wallet). */
export interface OrderFeeTerms {
  payer: FeePayer;
  terms: WalletFeeTerms;
}

/** The quote service (issue 32): answers within `waitMs` (an estimate when the provider's quote is not there in time). */
export interface CheckoutQuotes {
  quote(order: QuoteOrder, options: { waitMs: number }): Promise<RowQuote>;
}

/** What this gateway learned of its providers: measured checkouts, and which ones the circuit breaker lists. */
export interface CheckoutSignals {
  /** Recent checkouts by provider id. */
  measured(): Promise<ReadonlyMap<string, MeasuredCheckouts>>;
  /** Of `ids`, those the page lists (the circuit breaker's; never none of a non-empty list), in any order. */
  listed(ids: readonly string[]): Promise<readonly string[]>;
}

/** The request's headers, as the service sees them. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** The optional services the rows are built from; the app's deps carry them in. */
export interface CheckoutPorts {
  quotes?: CheckoutQuotes;
  signals?: CheckoutSignals;
  /** Where the customer is, from the headers a trusted proxy sets; undefined when it does not say. */
  customerLocation?(headers: RequestHeaders): CustomerLocation | undefined;
  /** CHECKOUT_RANKING_MIN_ATTEMPTS; the domain's default without it. */
  rankingMinAttempts?: number;
  /** How long a page waits for the quotes; QUOTE_WAIT_MS without it. */
  quoteWaitMs?: number;
}

/** A quote's total the ranking can cost: a plain decimal of at most two places (anything else ranks as its documented fees). */
const DECIMAL_AMOUNT = /^\d{1,12}(\.\d{1,2})?$/;

/** A page waits this long for quotes before it shows the estimates (issue 32: under 1.5 s cold). */
export const QUOTE_WAIT_MS = 800;

/** The rows' facts besides the ranking: each available provider's price, and the quotes that failed. */
export interface RowPrices {
  /** By provider id; absent for a provider whose charge cannot be valued in USD (no rate right now). */
  prices: ReadonlyMap<string, RowQuote>;
  /** Quote calls that threw (the estimate stands in): for the route's log. */
  failures: readonly { provider: string; error: unknown }[];
}

/** What the ranking and the words need of one order's context. */
export interface RowsContext {
  rates: RateTable | undefined;
  country?: CountryCode;
}

/**
 * The estimate Process Payment records for a charge: the middle of the documented fees off its USD
 * value; fees on top, the fixed USDC, and what the customer pays for it estimated from those fees.
 */
export function estimateRow(
  option: AvailableProviderOption,
  rates: RateTable | undefined,
  feesOnTop?: QuoteOrder['feesOnTop'],
): RowQuote | undefined {
  const { amount, currency } = option.charge;
  const provider = option.provider.id;
  if (feesOnTop) {
    const total = feesOnTopEstimate({ amountMinorUnits: amount.minorUnits, ...feesOnTop, fees: option.provider.fees });
    return { provider, basis: 'estimate', usdc: feesOnTop.usdc, total: formatMinorUnits(total), currency, feesOnTop };
  }
  const usdCents = valueInUsdCents(amount.minorUnits, currency, rates);
  if (usdCents === undefined) return undefined;
  const { usdc } = expectUsdc({ usdCents, fees: option.provider.fees });
  return { provider, basis: 'estimate', usdc, total: amount.text, currency };
}

/** Fees on top for this row (fee-payer.ts): when the customer pays them and its provider sells a fixed USDC amount. */
function feesOnTopOf(option: AvailableProviderOption, rates: RateTable | undefined, fees: OrderFeeTerms | undefined) {
  if (!fees) return undefined;
  const usdCents = valueInUsdCents(option.charge.amount.minorUnits, option.charge.currency, rates);
  if (usdCents === undefined) return undefined;
  const sellsFixedUsdc = option.provider.fixedUsdc !== undefined;
  const amount = checkoutAmountOf({ payer: fees.payer, sellsFixedUsdc, usdCents, terms: fees.terms });
  return amount.feesOnTop ? { usdc: amount.usdc, orderUsdc: amount.orderUsdc } : undefined;
}

/**
 * Every available provider's price: its quote (all asked at once, each within the wait) where the
 * quote service is there, else, and whenever a quote call fails, the estimate.
 */
export async function priceRows(
  options: readonly AvailableProviderOption[],
  rates: RateTable | undefined,
  ports: CheckoutPorts,
  { fees, location }: { fees?: OrderFeeTerms | undefined; location?: CustomerLocation | undefined } = {},
): Promise<RowPrices> {
  const failures: { provider: string; error: unknown }[] = [];
  const waitMs = ports.quoteWaitMs ?? QUOTE_WAIT_MS;
  const priced = await Promise.all(
    options.map(async (option): Promise<RowQuote | undefined> => {
      const feesOnTop = feesOnTopOf(option, rates, fees);
      const estimate = estimateRow(option, rates, feesOnTop);
      if (!ports.quotes) return estimate;
      try {
        const { amount, currency } = option.charge;
        return await ports.quotes.quote(
          { provider: option.provider.id, amount, currency, ...(feesOnTop ? { feesOnTop } : {}), ...(location ? { location } : {}) },
          { waitMs },
        );
      } catch (error) {
        failures.push({ provider: option.provider.id, error });
        return estimate;
      }
    }),
  );
  const prices = new Map<string, RowQuote>();
  for (const price of priced) if (price) prices.set(price.provider, price);
  return { prices, failures };
}

/** The ranking's context: measured checkouts, quoted costs, the customer's country. */
export async function rankingContext(prices: RowPrices, context: RowsContext, ports: CheckoutPorts): Promise<RankingContext> {
  const quoted = new Map<string, number>();
  for (const price of prices.prices.values()) {
    if (price.basis !== 'quote' || !DECIMAL_AMOUNT.test(price.total)) continue;
    const paysUsdCents = valueInUsdCents(parseFiatAmount(price.total).minorUnits, price.currency, context.rates);
    if (paysUsdCents !== undefined && paysUsdCents > 0n) quoted.set(price.provider, quotedCostBps(paysUsdCents, price.usdc));
  }
  return {
    minAttempts: ports.rankingMinAttempts ?? DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS,
    measured: ports.signals ? await ports.signals.measured() : new Map(),
    quotedCostBps: quoted,
    ...(context.country ? { customerCountry: context.country } : {}),
  };
}

/**
 * The options the page may list: the circuit breaker's (when it is there) among the available
 * ones; unavailable and withheld options are kept, the page says why they cannot be chosen.
 */
export async function listedOptions(options: readonly ProviderOption[], ports: CheckoutPorts): Promise<ProviderOption[]> {
  if (!ports.signals) return [...options];
  const available = options.filter((option) => option.status === 'available').map((option) => option.provider.id);
  const listed = new Set(await ports.signals.listed(available));
  return options.filter((option) => option.status !== 'available' || listed.has(option.provider.id));
}

/**
 * The operator's order as the page starts from it: the providers made for the order's currency
 * first, then those taking any currency, then those charging it converted to USD (a customer reads
 * their own currency before a conversion).
 */
export function inOperatorOrder(options: readonly ProviderOption[]): ProviderOption[] {
  return stableGroups(options, (option) =>
    option.status !== 'available' ? 0 : option.converted ? 2 : option.provider.currency === option.charge.currency ? 0 : 1,
  );
}

function valueInUsdCents(minorUnits: bigint, currency: CurrencyCode, rates: RateTable | undefined): bigint | undefined {
  if (currency === 'USD') return minorUnits;
  const rate = rates?.get(currency);
  return rate ? convertToUsdMinorUnits(minorUnits, rate) : undefined;
}
