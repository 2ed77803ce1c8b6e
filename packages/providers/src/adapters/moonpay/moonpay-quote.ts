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

export async function moonpayBuyQuote(
  http: ProviderHttpClient,
  { apiHost, apiKey, paymentMethod }: MoonpayQuoteRequest,
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = urlWithQuery(new URL(`/v3/currencies/${USDC_POLYGON}/buy_quote`, apiHost), {
    apiKey,
    baseCurrencyCode: order.currency.toLowerCase(),
    baseCurrencyAmount: order.amount,
    paymentMethod,
    areFeesIncluded: 'true',
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
