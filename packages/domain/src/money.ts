import { GatewayError, invalidParameter } from './errors';

/** USDC has 6 decimals on every chain we support; amounts inside the gateway are base units. */
export const USDC_DECIMALS = 6;
const USDC_SCALE = 10n ** BigInt(USDC_DECIMALS);

/** Fiat amounts carry at most two decimals; we keep them as minor units (cents) inside. */
export const FIAT_DECIMALS = 2;
const FIAT_SCALE = 10n ** BigInt(FIAT_DECIMALS);

/** Above this an amount is certainly a typo or an attack, not an order total. */
export const MAX_FIAT_AMOUNT_UNITS = 1_000_000n;

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export interface FiatAmount {
  /** Canonical decimal string with exactly two decimals, e.g. "49.90". */
  readonly text: string;
  readonly minorUnits: bigint;
}

/**
 * Parses a customer-facing fiat amount. Only plain positive decimals are money: exponents,
 * signs, thousands separators, commas and "NaN" are refused rather than guessed at.
 */
export function parseFiatAmount(input: string, param = 'amount'): FiatAmount {
  const match = PLAIN_DECIMAL.exec(input);
  if (!match) {
    throw invalidParameter(
      param,
      `${param} must be a plain positive decimal with a dot and at most ${FIAT_DECIMALS} decimals, e.g. 49.99 (got "${truncate(input)}")`,
    );
  }
  const [, whole = '', fraction = ''] = match;
  if (fraction.length > FIAT_DECIMALS) {
    throw invalidParameter(param, `${param} has more than ${FIAT_DECIMALS} decimals; round it to cents, e.g. 49.99`);
  }
  const minorUnits = BigInt(whole) * FIAT_SCALE + BigInt(fraction.padEnd(FIAT_DECIMALS, '0'));
  if (minorUnits <= 0n) {
    throw invalidParameter(param, `${param} must be greater than 0`);
  }
  if (minorUnits > MAX_FIAT_AMOUNT_UNITS * FIAT_SCALE) {
    throw invalidParameter(param, `${param} must be at most ${MAX_FIAT_AMOUNT_UNITS}`);
  }
  return { text: formatMinorUnits(minorUnits), minorUnits };
}

export function formatMinorUnits(minorUnits: bigint): string {
  return formatScaled(minorUnits, FIAT_DECIMALS, false);
}

/** Base units to a decimal string with trailing zeros trimmed ("1.5", "0.000001", "12"). */
export function formatUsdc(baseUnits: bigint): string {
  return formatScaled(baseUnits, USDC_DECIMALS, true);
}

/** Base units to a decimal string with all six decimals ("24.255000", "0.000000"): the ledger's columns line up and add up as written. */
export function formatUsdcFixed(baseUnits: bigint): string {
  if (baseUnits < 0n) return formatScaled(baseUnits, USDC_DECIMALS, false);
  // One conversion instead of a division, a remainder and two: a ledger writes a dozen a row.
  const digits = baseUnits.toString().padStart(USDC_DECIMALS + 1, '0');
  return `${digits.slice(0, -USDC_DECIMALS)}.${digits.slice(-USDC_DECIMALS)}`;
}

export function parseUsdc(input: string): bigint {
  const match = PLAIN_DECIMAL.exec(input);
  if (!match || (match[2]?.length ?? 0) > USDC_DECIMALS) {
    throw new GatewayError('invalid_parameter', `"${truncate(input)}" is not a USDC amount with at most 6 decimals`);
  }
  const [, whole = '', fraction = ''] = match;
  return BigInt(whole) * USDC_SCALE + BigInt(fraction.padEnd(USDC_DECIMALS, '0'));
}

/**
 * An exchange rate as an exact fraction: `numerator / denominator` units of the currency per
 * 1 USD. Rates come from configuration as decimal strings and are never floats.
 */
export interface ExactRate {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

export function parseRate(input: string): ExactRate {
  const match = PLAIN_DECIMAL.exec(input);
  if (!match) throw new Error(`"${input}" is not a decimal exchange rate`);
  const [, whole = '', fraction = ''] = match;
  const denominator = 10n ** BigInt(fraction.length);
  const numerator = BigInt(whole) * denominator + BigInt(fraction || '0');
  if (numerator <= 0n) throw new Error(`exchange rate "${input}" must be greater than 0`);
  return { numerator, denominator };
}

/** A rate as recorded beside what it priced: a plain decimal when it is one (4/5 is 0.8), else the exact fraction. */
export function formatRate(rate: ExactRate): string {
  for (let digits = 0; digits <= 36; digits += 1) {
    const scale = 10n ** BigInt(digits);
    if (scale % rate.denominator === 0n) return formatScaled((rate.numerator * scale) / rate.denominator, digits, true);
  }
  return `${rate.numerator}/${rate.denominator}`;
}

/** A rate as formatRate recorded it: a plain decimal, or `numerator/denominator`. Throws on anything else. */
export function parseRecordedRate(text: string): ExactRate {
  const fraction = /^(\d+)\/(\d+)$/.exec(text);
  if (!fraction) return parseRate(text);
  const [, numerator = '', denominator = ''] = fraction;
  if (BigInt(numerator) <= 0n || BigInt(denominator) <= 0n) throw new Error(`exchange rate "${truncate(text)}" must be greater than 0`);
  return { numerator: BigInt(numerator), denominator: BigInt(denominator) };
}

/** Converts USD minor units to another currency's minor units, rounding up (minimums stay minimums). */
export function convertUsdMinorUnits(usdMinorUnits: bigint, rate: ExactRate): bigint {
  const product = usdMinorUnits * rate.numerator;
  return (product + rate.denominator - 1n) / rate.denominator;
}

/**
 * Converts another currency's minor units to USD cents, rounding up: a USD amount quoted for a
 * foreign-currency order never falls short of it.
 */
export function convertToUsdMinorUnits(minorUnits: bigint, rate: ExactRate): bigint {
  const product = minorUnits * rate.denominator;
  return (product + rate.numerator - 1n) / rate.numerator;
}

function formatScaled(value: bigint, decimals: number, trimZeros: boolean): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  let fraction = (abs % scale).toString().padStart(decimals, '0');
  if (trimZeros) fraction = fraction.replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
