import { formatUsdc, type CurrencyCode } from '@gateway/domain';
import type { CheckoutOrder, ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { urlWithQuery } from '../../support/checkout-url';
import { requestQuote, exactQuote, expectCode, positiveAmount, quoteObject } from '../../support/quote-amounts';

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
 * - Fees on top of a fixed USDC amount (issue 32, quoteUsdc): `quoteCurrencyAmount` instead of
 *   baseCurrencyAmount, written as the widget URL writes it (formatUsdc). The reference describes it
 *   as how much crypto the customer wants to buy, taking precedence over baseCurrencyAmount and
 *   required without it. The copy of the page read here ends before its parameters: they were read
 *   in MoonPay's OpenAPI of the same operation as its docs registry served it (`@moonpaydocs/v2.0`,
 *   downloaded in 2024 by readme's `api` generator into github.com/Sahil-Sevda/moonpay-learning,
 *   .api/apis/moonpaydocs/openapi.json), whose summary, server and example answer are the page's.
 *   `areFeesIncluded` is left out: the reference describes it for baseCurrencyAmount only (default
 *   false, fees on top). USDC is read back from the answer's `quoteCurrencyAmount` ("the amount of
 *   cryptocurrency the customer will receive"), not taken as asked.
 * - `totalAmount` as what the customer pays: the reference gives it no description, but says
 *   `networkFeeAmount` "is added to baseCurrencyAmount, feeAmount and extraFeeAmount when the
 *   customer's card is charged", and its example's totalAmount is that sum (288.37 + 3.99 + 0 + 7.64).
 * - The numbers are read from their JSON text, never through a binary float (quote-amounts.ts).
 */

export const MOONPAY_API_HOST = 'https://api.moonpay.com';

/** The code the widget URL preselects (moonpay-adapter.ts): USDC on Polygon. */
const USDC_POLYGON = 'usdc_polygon';

const MOONPAY = 'MoonPay';

export interface MoonpayQuoteRequest {
  /** MOONPAY_API_HOST unless the API_URL setting names another (a fake, an egress proxy). */
  apiHost: string;
  /** The publishable key, pk_live_… or pk_test_… (the latter selects MoonPay's sandbox). */
  apiKey: string;
  /** As in the widget URL: `credit_debit_card`, or `interac` for Interac e-Transfer. */
  paymentMethod: string;
}

/** What the quote fixes: the fiat amount the customer pays (fees taken out) or the USDC delivered (base units, fees on top). */
export type MoonpayQuoteAmount = Pick<CheckoutOrder, 'amount' | 'currency'> | { usdc: bigint; currency: CurrencyCode };

export async function moonpayBuyQuote(
  http: ProviderHttpClient,
  { apiHost, apiKey, paymentMethod }: MoonpayQuoteRequest,
  order: MoonpayQuoteAmount,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const amount =
    'usdc' in order ? { quoteCurrencyAmount: formatUsdc(order.usdc) } : { baseCurrencyAmount: order.amount, areFeesIncluded: 'true' };
  const url = urlWithQuery(new URL(`/v3/currencies/${USDC_POLYGON}/buy_quote`, apiHost), {
    apiKey,
    baseCurrencyCode: order.currency.toLowerCase(),
    ...amount,
    paymentMethod,
  });
  const body = await requestQuote(http, 'MoonPay', url, { signal });
  return parseBuyQuote(body, order.currency);
}

function parseBuyQuote(text: string, currency: ProviderQuote['currency']): ProviderQuote {
  const fields = quoteObject(MOONPAY, text);
  expectCode(MOONPAY, fields, 'baseCurrencyCode', currency.toLowerCase());
  expectCode(MOONPAY, fields, 'quoteCurrencyCode', USDC_POLYGON);
  return exactQuote(
    positiveAmount(MOONPAY, fields, 'quoteCurrencyAmount', 'number'),
    positiveAmount(MOONPAY, fields, 'totalAmount', 'number'),
    currency,
  );
}
