import { FIAT_DECIMALS } from './money';

/**
 * Which orders share a provider's quote. A quote is asked once per provider, currency and amount
 * band per cache period, however many customers look, and an order in the band is priced by
 * scaling that quote to its own amount. Bands are geometric: each is at most QUOTE_BAND_BPS wide
 * (relative to its lower edge), so the scaled figure differs from the provider's own quote for the
 * order only by the band's share of the provider's fixed fees (a network fee of 1.00 moves it by at
 * most 0.02 at 2 %), well inside the 1 % a quote is judged with (QUOTED_TOLERANCE_BPS). A provider
 * whose percentage changes at a tier edge inside a band is off by the tier step for orders on the
 * other side of the edge until the quote is refreshed.
 */
export const QUOTE_BAND_BPS = 200;

/**
 * How long a band's quote is used (QUOTE_CACHE_MS): a rate moves little in a minute, and a busy
 * page then costs a provider one quote call per band a minute.
 */
export const DEFAULT_QUOTE_CACHE_MS = 60_000;
/** How long one quote call may take (QUOTE_TIMEOUT_MS): past it the row is an estimate until the next period. */
export const DEFAULT_QUOTE_TIMEOUT_MS = 3_000;

/** A band of order amounts, in minor units: [lower, upper). */
export interface QuoteBand {
  /** Its number, counted from the smallest amount: part of the cache key. */
  index: number;
  lower: bigint;
  upper: bigint;
}

const BPS = 10_000n;
/** Bands up to 10^14 minor units (the largest amount a fiat decimal string is read with, 12 digits). */
const LARGEST = 10n ** 14n;

let edges: bigint[] | undefined;

/**
 * The band's edges: each the last times (1 + QUOTE_BAND_BPS) rounded down, and at least one minor
 * unit more (below 50 cents at 2 % each amount is a band of its own). Integer arithmetic: the same
 * amount falls in the same band on every replica.
 */
function bandEdges(): bigint[] {
  if (edges) return edges;
  const built = [1n];
  let edge = 1n;
  while (edge <= LARGEST) {
    const grown = (edge * (BPS + BigInt(QUOTE_BAND_BPS))) / BPS;
    edge = grown > edge ? grown : edge + 1n;
    built.push(edge);
  }
  edges = built;
  return built;
}

/** The band of an amount of `minorUnits` (positive). */
export function quoteBandOf(minorUnits: bigint): QuoteBand {
  if (minorUnits < 1n || minorUnits > LARGEST) throw new RangeError(`no quote band for ${minorUnits} minor units`);
  const all = bandEdges();
  // The last edge at or below the amount (binary search: about 1,500 edges).
  let low = 0;
  let high = all.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((all[middle] as bigint) <= minorUnits) low = middle;
    else high = middle - 1;
  }
  return { index: low, lower: all[low] as bigint, upper: all[low + 1] as bigint };
}

/** What a quote says: the customer pays `total` (a decimal string in the order's currency) and the wallet receives `usdc` (base units). */
export interface QuotedFigures {
  usdc: bigint;
  total: string;
}

/**
 * A quote of `quotedMinorUnits` scaled to an order of `minorUnits` in the same band: USDC rounded
 * down (never promising a base unit more), the total rounded up at its own precision (never telling
 * the customer less), so a total equal to the quoted amount (fees taken out of it) stays the order amount.
 */
export function scaleQuote(quote: QuotedFigures, quotedMinorUnits: bigint, minorUnits: bigint): QuotedFigures {
  if (quotedMinorUnits < 1n || minorUnits < 1n) throw new RangeError('a quote is scaled between positive amounts');
  const match = /^(\d+)(?:\.(\d+))?$/.exec(quote.total);
  if (!match) throw new RangeError(`a quote's total is a plain decimal, not ${quote.total.slice(0, 20)}`);
  const fraction = match[2] ?? '';
  const decimals = Math.max(fraction.length, FIAT_DECIMALS);
  const totalUnits = BigInt((match[1] as string) + fraction.padEnd(decimals, '0'));
  const scaledTotal = (totalUnits * minorUnits + quotedMinorUnits - 1n) / quotedMinorUnits;
  const text = scaledTotal.toString().padStart(decimals + 1, '0');
  return {
    usdc: (quote.usdc * minorUnits) / quotedMinorUnits,
    total: `${text.slice(0, -decimals)}.${text.slice(-decimals)}`,
  };
}
