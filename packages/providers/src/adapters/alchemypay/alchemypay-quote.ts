import { isLosslessNumber } from 'lossless-json';
import { ProviderCheckoutError, type CheckoutOrder, type ProviderMode, type ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { hmacSha256 } from '../../support/signing';
import {
  errorMessageOf,
  exactQuote,
  expectCode,
  objectField,
  positiveAmount,
  quoteObject,
  requestQuote,
} from '../../support/quote-amounts';
import { alchemyPaySignContent, alchemyPaySortedJson } from './alchemypay-sign';

/**
 * Alchemy Pay's Estimate Price Query, https://alchemypay.readme.io/docs/estimate-price-query ("the
 * estimated fiat amount you need to pay or the crypto amount you can receive"; no order is made) —
 * POST <API>/open/api/v4/merchant/order/quoted/result with headers `appid`, `timestamp` (13-digit
 * Unix ms, valid 5 minutes) and `sign` (API Sign, https://alchemypay.readme.io/docs/api-sign: base64
 * HMAC-SHA256(app secret, timestamp + "POST" + path + the body sorted by name, empties dropped, as
 * compact JSON)), and a JSON body of strings: `side`, `fiatAmount`, `fiatCurrency`, `cryptoCurrency`,
 * `network` (`cryptoQuantity` and `payWayCode` are optional and not sent).
 * - It answers `{success, returnCode "0000", returnMsg, extend, data}`, `data` an object of decimal
 *   strings and codes: `cryptoPrice`, `side`, `fiatAmount`, `cryptoQuantity` ("Estimated amount of
 *   crypto the user will receive"), `rampFee` and `networkFee` (in the fiat), `fiat`, `crypto`,
 *   `payWayCode`, `cryptoNetworkFee` (in the crypto). The page's example adds up: 100 USD less 3.82
 *   and 0.86 at a price of 1.000 is 95.32: `fiatAmount` is what the customer pays, fees included, and
 *   `cryptoQuantity` what the wallet receives, both fees taken out.
 * - A refusal keeps the envelope with another `returnCode` (the page names 3102, an amount out of
 *   range, and 81010, a merchant parameter error) and `success` false.
 * - API hosts: https://openapi.alchemypay.org and https://openapi-test.alchemypay.org (the page's
 *   "Prod" and "Test" environments). Alchemy Pay accepts API calls only from IPs the merchant
 *   whitelisted in its dashboard (https://alchemypay.readme.io/docs/api-integration).
 *
 * Choices where the docs are open:
 * - This call rather than Price Query (POST /open/api/v4/merchant/order/quote, the same headers): the
 *   copies of that page read here break off inside its answer, so its fields and whether its amount
 *   includes the fees were not read; the newer Quote Query page (POST /open/api/v4/merchant/quotes)
 *   shows its answer but says neither what the amount includes nor whether its quantity is net.
 * - `data` is read as an object, as the current page shows it; the page's earlier versions showed a
 *   one-element list (with `payWayCode` 10004 and IDR), which is refused as not the answer documented now.
 * - `cryptoCurrency=USDC`, `network=MATIC`, `fiatAmount` and `fiatCurrency` as the order's: what the
 *   checkout URL locks. No `payWayCode`: the checkout preselects none (the page lets the customer
 *   choose), so the estimate is for the method Alchemy Pay picks, which the page does not name.
 * - The body sent is the very text signed, already sorted: one serialisation, nothing to drift.
 */

export const ALCHEMYPAY_API_HOSTS: Readonly<Record<ProviderMode, string>> = {
  live: 'https://openapi.alchemypay.org',
  test: 'https://openapi-test.alchemypay.org',
};
export const ALCHEMYPAY_QUOTE_PATH = '/open/api/v4/merchant/order/quoted/result';

const ALCHEMYPAY = 'Alchemy Pay';
const SUCCESS_CODE = '0000';

export function alchemyPayQuoteRequest(order: Pick<CheckoutOrder, 'amount' | 'currency'>): Record<string, string> {
  return { side: 'BUY', fiatAmount: order.amount, fiatCurrency: order.currency, cryptoCurrency: 'USDC', network: 'MATIC' };
}

export async function alchemyPayEstimate(
  http: ProviderHttpClient,
  { apiHost, appId, appSecret, nowMs }: { apiHost: string; appId: string; appSecret: string; nowMs: number },
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const request = alchemyPayQuoteRequest(order);
  const timestamp = String(nowMs);
  // An estimate makes no order at Alchemy Pay: requestQuote may ask again.
  const body = await requestQuote(http, ALCHEMYPAY, `${apiHost}${ALCHEMYPAY_QUOTE_PATH}`, {
    signal,
    headers: {
      appid: appId,
      timestamp,
      sign: hmacSha256(appSecret, alchemyPaySignContent(timestamp, 'POST', ALCHEMYPAY_QUOTE_PATH, request), 'base64'),
    },
    body: alchemyPaySortedJson(request),
  });
  const answer = quoteObject(ALCHEMYPAY, body);
  const returnCode = answer.returnCode;
  if (answer.success !== true || returnCode !== SUCCESS_CODE) {
    const code = typeof returnCode === 'string' || isLosslessNumber(returnCode) ? String(returnCode).slice(0, 20) : 'no returnCode';
    throw new ProviderCheckoutError(`${ALCHEMYPAY} refused the quote (${code}${errorMessageOf(body)})`, 'refused');
  }
  const data = objectField(ALCHEMYPAY, answer, 'data');
  expectCode(ALCHEMYPAY, data, 'side', 'BUY');
  expectCode(ALCHEMYPAY, data, 'crypto', 'USDC');
  expectCode(ALCHEMYPAY, data, 'fiat', order.currency);
  return exactQuote(
    positiveAmount(ALCHEMYPAY, data, 'cryptoQuantity', 'string'),
    positiveAmount(ALCHEMYPAY, data, 'fiatAmount', 'string'),
    order.currency,
  );
}
