import { isLosslessNumber, parse } from 'lossless-json';
import { FIAT_DECIMALS, USDC_DECIMALS } from '@gateway/domain';
import { ProviderCheckoutError, type CheckoutOrder, type ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { urlWithQuery } from '../../support/checkout-url';

/**
 * MoonPay's public buy quote: "Get Real-time Buy quote",
 * https://dev.moonpay.com/api-reference/widget/getbuyquote —
 * GET https://api.moonpay.com/v3/currencies/{currencyCode}/buy_quote with the publishable key as
 * `apiKey`, `baseCurrencyCode`, `baseCurrencyAmount`, `paymentMethod` and `areFeesIncluded`; it
 * answers JSON numbers (`quoteCurrencyAmount`, `totalAmount`, `feeAmount`, `networkFeeAmount`, …).
 *
 * - Host: the reference names api.moonpay.com as its only server; a pk_test_ key selects the
 *   sandbox on the same host (https://dev.moonpay.com/widget/sandbox-testing: "Using your test API
 *   key … will automatically switch the environment to our sandbox"). api.moonpay.dev is the
 *   sandbox of MoonPay's newer /platform API, not of /v3.
 * - `paymentMethod`: the widget's value, so Interac e-Transfer (which runs on createMoonpayAdapter)
 *   is quoted as `interac`: its fees are not a card's. MoonPay lists `interac` among its
 *   paymentMethod values (https://dev.moonpay.com/platform/guides/pay-with-widget); the buy quote
 *   reference describes the parameter as the transaction's payment method without listing values
 *   in the copy read. Should MoonPay not quote `interac`, its 4xx becomes a 'refused' quote, never
 *   a card-priced one.
 * - `areFeesIncluded=true`: our checkout locks the order amount as what the customer pays, so the
 *   quote asks what that amount buys once MoonPay's fees are taken out of it (false would price
 *   the fees on top of it).
 * - The numbers are read from their JSON text (lossless-json), never through a binary float: USDC
 *   is truncated to 6 decimals (a quote never promises a base unit more), the total is kept
 *   exactly, padded to two decimals. An exponent (1.5e1) is valid JSON and is read exactly.
 */

export const MOONPAY_API_HOST = 'https://api.moonpay.com';

/** The code the widget URL preselects (moonpay-adapter.ts): USDC on Polygon. */
const USDC_POLYGON = 'usdc_polygon';

/** An exponent beyond this is no money amount, and 10n ** hugeExponent would stall the process. */
const MAX_EXPONENT = 64;

export interface MoonpayQuoteRequest {
  /** The publishable key, pk_live_… or pk_test_… (the latter selects MoonPay's sandbox). */
  apiKey: string;
  /** As in the widget URL: `credit_debit_card`, or `interac` for Interac e-Transfer. */
  paymentMethod: string;
}

export async function moonpayBuyQuote(
  http: ProviderHttpClient,
  { apiKey, paymentMethod }: MoonpayQuoteRequest,
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = urlWithQuery(new URL(`/v3/currencies/${USDC_POLYGON}/buy_quote`, MOONPAY_API_HOST), {
    apiKey,
    baseCurrencyCode: order.currency.toLowerCase(),
    baseCurrencyAmount: order.amount,
    paymentMethod,
    areFeesIncluded: 'true',
  });
  // Unreachable or timed out: the client's ProviderUnreachableError passes through as it is.
  const response = await http.request({
    method: 'GET',
    call: 'quote',
    url: url.toString(),
    headers: { accept: 'application/json' },
    signal,
    retryable: true,
  });
  if (response.statusCode !== 200) {
    throw new ProviderCheckoutError(`MoonPay refused the quote (HTTP ${response.statusCode}${errorMessageOf(response.body)})`, 'refused');
  }
  return parseBuyQuote(response.body, order.currency);
}

function parseBuyQuote(text: string, currency: ProviderQuote['currency']): ProviderQuote {
  let body: unknown;
  try {
    body = parse(text);
  } catch (error) {
    throw malformed(`not JSON (${(error as Error).message})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw malformed('not a JSON object');
  const fields = body as Record<string, unknown>;
  // A quote for another pair than asked is no quote for this order.
  expectCode(fields, 'baseCurrencyCode', currency.toLowerCase());
  expectCode(fields, 'quoteCurrencyCode', USDC_POLYGON);
  const usdc = decimalField(fields, 'quoteCurrencyAmount');
  const total = decimalField(fields, 'totalAmount');
  return { usdc: scaledDown(usdc, USDC_DECIMALS), total: plainDecimal(total, FIAT_DECIMALS), currency };
}

/** value = digits / 10^scale, exactly (scale may be negative after an exponent). */
interface ExactDecimal {
  digits: bigint;
  scale: number;
}

const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

function decimalField(fields: Record<string, unknown>, name: string): ExactDecimal {
  const value = fields[name];
  if (!isLosslessNumber(value)) throw malformed(`${name} is missing or not a number`);
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = JSON_NUMBER.exec(value.value) ?? [];
  const shift = Number(exponent);
  if (!whole || Math.abs(shift) > MAX_EXPONENT) throw malformed(`${name} ${value.value} is not an amount`);
  const decimal = { digits: BigInt(whole + fraction), scale: fraction.length - shift };
  if (sign === '-' || decimal.digits === 0n) throw malformed(`${name} ${value.value} is not a positive amount`);
  return decimal;
}

/** The value in units of 10^-decimals, truncated toward zero (never rounded up). */
function scaledDown({ digits, scale }: ExactDecimal, decimals: number): bigint {
  const shift = decimals - scale;
  return shift >= 0 ? digits * 10n ** BigInt(shift) : digits / 10n ** BigInt(-shift);
}

/** The exact value as a plain decimal string with at least `minDecimals` decimals (25 → "25.00"). */
function plainDecimal(value: ExactDecimal, minDecimals: number): string {
  const decimals = Math.max(value.scale, minDecimals);
  const units = scaledDown(value, decimals)
    .toString()
    .padStart(decimals + 1, '0');
  return `${units.slice(0, -decimals)}.${units.slice(-decimals)}`;
}

function expectCode(fields: Record<string, unknown>, name: string, expected: string): void {
  const value = fields[name];
  if (value !== undefined && (typeof value !== 'string' || value.toLowerCase() !== expected)) {
    throw malformed(`${name} is ${JSON.stringify(String(value))}, asked for ${expected}`);
  }
}

function malformed(why: string): ProviderCheckoutError {
  return new ProviderCheckoutError(`MoonPay's quote is malformed: ${why}`, 'refused');
}

/** MoonPay's error bodies carry `message`; a bounded piece of it helps whoever reads the log. */
function errorMessageOf(body: string): string {
  try {
    const message = (parse(body) as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? `: ${message.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}
