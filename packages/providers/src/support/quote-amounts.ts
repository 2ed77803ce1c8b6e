import { isLosslessNumber, parse } from 'lossless-json';
import { FIAT_DECIMALS, USDC_DECIMALS } from '@gateway/domain';
import { ProviderCheckoutError, type ProviderQuote } from '../provider-contract';
import type { ProviderHttpClient } from './provider-http-client';

/**
 * Reading a provider's quote exactly: its amounts arrive as JSON numbers (MoonPay, Transak) or
 * decimal strings (Stripe, Coinbase), and either is read from its text, never through a binary
 * float. USDC is truncated to 6 decimals (a quote never promises a base unit more), the total is
 * kept exactly, padded to two decimals. An exponent (1.5e1) is valid JSON and is read exactly.
 */

/** An exponent beyond this is no money amount, and 10n ** hugeExponent would stall the process. */
const MAX_EXPONENT = 64;
/** Longer than this is no money amount (and keeps a stored quote's total short). */
const MAX_AMOUNT_CHARS = 40;
const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** value = digits / 10^scale, exactly (scale may be negative after an exponent). */
export interface ExactDecimal {
  digits: bigint;
  scale: number;
}

/** The refusal of a quote whose answer is not as documented: `provider`'s quote is malformed. */
export function malformedQuote(provider: string, why: string): ProviderCheckoutError {
  return new ProviderCheckoutError(`${provider}'s quote is malformed: ${why}`, 'refused');
}

/** The answer parsed with its numbers kept as text (lossless-json), as a JSON object. */
export function quoteObject(provider: string, text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = parse(text);
  } catch (error) {
    throw malformedQuote(provider, `not JSON (${(error as Error).message})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw malformedQuote(provider, 'not a JSON object');
  return body as Record<string, unknown>;
}

/** A nested object of a parsed answer (`response`, `payment_total`); malformed when it is not one. */
export function objectField(provider: string, fields: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = fields[name];
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isLosslessNumber(value)) {
    throw malformedQuote(provider, `${name} is missing or not an object`);
  }
  return value as Record<string, unknown>;
}

/**
 * A positive amount, exactly, written as the provider documents it: a JSON `number` or a decimal
 * `string` (the other form is not the documented answer, and is refused).
 */
export function positiveAmount(
  provider: string,
  fields: Record<string, unknown>,
  name: string,
  written: 'number' | 'string',
): ExactDecimal {
  const value = fields[name];
  const text = written === 'number' ? (isLosslessNumber(value) ? value.value : undefined) : typeof value === 'string' ? value : undefined;
  if (text === undefined) throw malformedQuote(provider, `${name} is missing or not a ${written}`);
  if (text.length > MAX_AMOUNT_CHARS) throw malformedQuote(provider, `${name} has ${text.length} characters, no amount has`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = DECIMAL_TEXT.exec(text) ?? [];
  const shift = Number(exponent);
  if (!whole || Math.abs(shift) > MAX_EXPONENT) throw malformedQuote(provider, `${name} ${text.slice(0, 40)} is not an amount`);
  const decimal = { digits: BigInt(whole + fraction), scale: fraction.length - shift };
  if (sign === '-' || decimal.digits === 0n) throw malformedQuote(provider, `${name} ${text.slice(0, 40)} is not a positive amount`);
  return decimal;
}

/** The value in units of 10^-decimals, truncated toward zero (never rounded up). */
export function scaledDown({ digits, scale }: ExactDecimal, decimals: number): bigint {
  const shift = decimals - scale;
  return shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
}

/** The exact value as a plain decimal string with at least `minDecimals` decimals (25 → "25.00"). */
export function plainDecimal(value: ExactDecimal, minDecimals: number): string {
  const decimals = Math.max(value.scale, minDecimals);
  const units = scaledDown(value, decimals)
    .toString()
    .padStart(decimals + 1, '0');
  return `${units.slice(0, -decimals)}.${units.slice(-decimals)}`;
}

/** The quote from its two exact amounts: USDC truncated to base units, the total kept exactly. */
export function exactQuote(usdc: ExactDecimal, total: ExactDecimal, currency: ProviderQuote['currency']): ProviderQuote {
  return { usdc: scaledDown(usdc, USDC_DECIMALS), total: plainDecimal(total, FIAT_DECIMALS), currency };
}

/** A code of the answer, when present, must be the one asked for: a quote for another pair is no quote for this order. */
export function expectCode(provider: string, fields: Record<string, unknown>, name: string, expected: string): void {
  const value = fields[name];
  if (value !== undefined && (typeof value !== 'string' || value.toLowerCase() !== expected.toLowerCase())) {
    throw malformedQuote(provider, `${name} is ${JSON.stringify(String(value)).slice(0, 40)}, asked for ${expected}`);
  }
}

/** A bounded piece of an error answer's message (`message`, `error.message`, or Alchemy Pay's `returnMsg`), for whoever reads the log. */
export function errorMessageOf(body: string): string {
  try {
    const parsed = parse(body) as { message?: unknown; error?: { message?: unknown }; returnMsg?: unknown } | null;
    const message = parsed?.message ?? parsed?.error?.message ?? parsed?.returnMsg;
    return typeof message === 'string' ? `: ${message.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}

/**
 * A quote API's answer: a GET of `url` asking for JSON (with the provider's own headers), or a POST
 * of `body` as JSON where the API takes one (Coinbase, Alchemy Pay), retried as the client retries
 * quotes (a quote changes nothing at the provider); any answer but 200 is the provider refusing, its
 * message kept. Unreachable or timed out, the client's ProviderUnreachableError passes through as it is.
 */
export async function requestQuote(
  http: ProviderHttpClient,
  provider: string,
  url: URL | string,
  options: { signal: AbortSignal; headers?: Record<string, string>; body?: string },
): Promise<string> {
  const response = await http.request({
    method: options.body === undefined ? 'GET' : 'POST',
    call: 'quote',
    url: url.toString(),
    headers: {
      accept: 'application/json',
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: options.body }),
    signal: options.signal,
    retryable: true,
  });
  if (response.statusCode !== 200) {
    throw new ProviderCheckoutError(
      `${provider} refused the quote (HTTP ${response.statusCode}${errorMessageOf(response.body)})`,
      'refused',
    );
  }
  return response.body;
}
