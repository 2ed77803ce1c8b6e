import { GatewayError, invalidParameter } from './errors';
import { FIAT_DECIMALS, formatMinorUnits, MAX_FIAT_AMOUNT_UNITS, type ExactRate } from './money';

/**
 * Exchange-rate arithmetic: exact fractions of bigints only, never floats. A rate is always
 * `numerator / denominator` units of a currency per 1 USD (see ExactRate in money.ts).
 */

/** A positive amount held exactly: `numerator / denominator` (a power of ten when parsed). */
export interface ExactAmount {
  readonly numerator: bigint;
  readonly denominator: bigint;
  /** The amount as given, e.g. "49.9". */
  readonly text: string;
}

/**
 * Convert to USD takes more decimals than an order amount: shop plugins pass PHP floats through,
 * and PHP prints a float with up to 17 significant digits (100/3 → 33.333333333333336).
 */
export const CONVERT_VALUE_MAX_DECIMALS = 18;
const CONVERT_VALUE = /^(\d{1,15})(?:\.(\d+))?$/;

/**
 * Parses Convert to USD's `value`: a plain positive decimal with a dot, at most 18 decimals.
 * Exponents, signs, commas, spaces and "NaN" are refused rather than guessed at.
 */
export function parseConvertValue(input: string, param = 'value'): ExactAmount {
  const match = CONVERT_VALUE.exec(input);
  if (!match) {
    throw invalidParameter(
      param,
      `${param} must be a plain positive decimal with a dot, e.g. 49.99 or 150 (no sign, exponent, comma or spaces; got ` +
        `"${truncate(input)}")`,
    );
  }
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > CONVERT_VALUE_MAX_DECIMALS) {
    throw invalidParameter(param, `${param} has more than ${CONVERT_VALUE_MAX_DECIMALS} decimals`);
  }
  const denominator = 10n ** BigInt(fraction.length);
  const numerator = BigInt(whole) * denominator + BigInt(fraction || '0');
  if (numerator === 0n) throw invalidParameter(param, `${param} must be greater than 0`);
  return { numerator, denominator, text: input };
}

export interface UsdConversion {
  /** USD cents, rounded UP: the USD amount is never worth less than the amount converted. */
  usdCents: bigint;
  /** `usdCents` as a decimal string with exactly two decimals, e.g. "54.24". */
  valueCoin: string;
}

/**
 * Converts an exact amount of a currency to USD cents at `rate` (units per 1 USD), rounding UP to
 * the cent: the USD amount a shop charges instead of its own currency never falls short of the
 * order (the customer pays at most one cent more than the exact conversion). An amount worth more
 * than Process Payment's largest amount is refused: its result could not be paid anyway.
 */
export function convertAmountToUsd(amount: ExactAmount, rate: ExactRate, param = 'value'): UsdConversion {
  const scale = 10n ** BigInt(FIAT_DECIMALS);
  const numerator = amount.numerator * rate.denominator * scale;
  const denominator = amount.denominator * rate.numerator;
  const usdCents = ceilDiv(numerator, denominator);
  if (usdCents > MAX_FIAT_AMOUNT_UNITS * scale) {
    throw invalidParameter(param, `${param} is worth more than ${MAX_FIAT_AMOUNT_UNITS} USD, the largest amount Process Payment accepts`);
  }
  return { usdCents, valueCoin: formatMinorUnits(usdCents) };
}

/** USD per 1 unit of the currency (the inverse of the table's rate), exactly. */
export function usdPerUnit(rate: ExactRate): ExactRate {
  return reduceRate({ numerator: rate.denominator, denominator: rate.numerator });
}

/** The rate 1 (USD per USD). */
export const UNIT_RATE: ExactRate = { numerator: 1n, denominator: 1n };

/**
 * `a / b` as an exact, reduced fraction. With two rates against a common base (the ECB publishes
 * units per 1 EUR), `ratioOfRates(currencyPerEur, usdPerEur)` is the currency's units per 1 USD.
 */
export function ratioOfRates(a: ExactRate, b: ExactRate): ExactRate {
  assertPositive(a);
  assertPositive(b);
  return reduceRate({ numerator: a.numerator * b.denominator, denominator: a.denominator * b.numerator });
}

export function reduceRate(rate: ExactRate): ExactRate {
  assertPositive(rate);
  const divisor = gcd(rate.numerator, rate.denominator);
  return { numerator: rate.numerator / divisor, denominator: rate.denominator / divisor };
}

const JSON_NUMBER_RATE = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,3}))?$/;

/**
 * A rate as a JSON API writes it (the number's source text, never a parsed float): a plain
 * decimal, or one with an exponent such as `1.2345e-5`, taken exactly. Throws on anything else,
 * and on zero.
 */
export function parseRateText(text: string): ExactRate {
  const match = JSON_NUMBER_RATE.exec(text);
  if (!match) throw new Error(`"${truncate(text)}" is not a decimal exchange rate`);
  const [, whole = '', fraction = '', exponentText = '0'] = match;
  let numerator = BigInt(whole + fraction);
  let denominator = 10n ** BigInt(fraction.length);
  const exponent = Number(exponentText);
  if (exponent > 0) numerator *= 10n ** BigInt(exponent);
  if (exponent < 0) denominator *= 10n ** BigInt(-exponent);
  if (numerator === 0n) throw new Error(`exchange rate "${truncate(text)}" must be greater than 0`);
  return reduceRate({ numerator, denominator });
}

/**
 * A positive fraction as a decimal string with `significantDigits` significant digits, rounded
 * half up, trailing zeros trimmed: 1/0.92 → "1.086956522", 1/83.1 → "0.01203369434", 1 → "1".
 */
export function formatSignificant(value: ExactRate, significantDigits = 10): string {
  assertPositive(value);
  if (!Number.isInteger(significantDigits) || significantDigits < 1) throw new RangeError('significantDigits must be a positive integer');
  const { numerator, denominator } = value;
  const whole = numerator / denominator;
  let decimals: number;
  if (whole > 0n) {
    decimals = Math.max(0, significantDigits - whole.toString().length);
  } else {
    // 0.00ddd…: count the zeros after the point before the first significant digit.
    let zeros = 0;
    let scaled = numerator * 10n;
    while (scaled < denominator) {
      scaled *= 10n;
      zeros += 1;
    }
    decimals = zeros + significantDigits;
  }
  const scale = 10n ** BigInt(decimals);
  const rounded = (2n * numerator * scale + denominator) / (2n * denominator); // half up
  const digits = rounded.toString().padStart(decimals + 1, '0');
  const integerPart = digits.slice(0, digits.length - decimals);
  const fractionPart = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fractionPart ? `${integerPart}.${fractionPart}` : integerPart;
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function assertPositive(rate: ExactRate): void {
  if (rate.numerator <= 0n || rate.denominator <= 0n) {
    throw new GatewayError('internal_error', `exchange rate ${rate.numerator}/${rate.denominator} is not positive`);
  }
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
