import { FIAT_DECIMALS, POLYGON_NATIVE_USDC, USDC_DECIMALS } from '@gateway/domain';
import type { CheckoutOrder, ProviderMode, ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { decimalAmount, jsonWithAmount } from '../../support/amount-json';
import { urlWithQuery } from '../../support/checkout-url';
import {
  expectCode,
  malformedQuote,
  objectField,
  plainDecimal,
  positiveAmount,
  quoteObject,
  requestQuote,
} from '../../support/quote-amounts';

/**
 * Ramp's on-ramp quote: POST <API>/api/host-api/v3/onramp/quote/all?hostApiKey=<key>.
 *
 * What Ramp's pages say, as read here: the REST API V3 reference
 * (https://docs.ramp.network/rest-api-v3-reference) gives the API base https://api.ramp.network/api,
 * JSON bodies both ways, an error as an object with a `code`, rate limits on every endpoint (100 a
 * minute per IP, docs.rampnetwork.com/rate-limiting), and the assets endpoint's AssetInfo (`symbol`,
 * `chain`, `decimals`, `address`). Its quote section was not readable here. What the quote call takes
 * and answers is therefore taken from integrators that call it in production, who agree with one
 * another but for the asset's id: a body of `cryptoAssetSymbol`, `fiatCurrency` and `fiatValue` (a
 * number). For the id one integrator passes its widget's swapAsset to both calls, as here
 * (`MATIC_USDC`, the id the checkout buys); another builds SYMBOL_CHAIN from the assets list. An id
 * Ramp does not know is refused, and the row keeps its estimate. The answer: `asset` (AssetInfo) beside one
 * object per payment method (`CARD_PAYMENT`, `MANUAL_BANK_TRANSFER`, …), each with `cryptoAmount`
 * (a string of the asset's base units), `fiatValue`, `appliedFee` and `baseRampFee` (numbers).
 *
 * What the amounts mean, from Ramp's own purchase object (ramp-instant-sdk's RampPurchase, the same
 * field names): in its examples `cryptoAmount` is (`fiatValue` − `appliedFee`) converted at the
 * asset's rate (100 GBP, fee 3.76, 110.72 tokens at 1.1505 EUR a GBP and 1 EUR a token): the fee is
 * taken out of `fiatValue`, which the customer pays. So the order amount is sent as `fiatValue`, the
 * card's `cryptoAmount` is the USDC the wallet receives and its `fiatValue` the total paid.
 *
 * Checks, since a quote for another asset is no quote for this order: the asset, where the answer
 * names it, is USDC on MATIC at the native contract with 6 decimals (bridged USDC.e has another
 * address), and the card's currency, where named, the one asked.
 * Open: the demo (test) API host is not on a page read (api.demo.ramp.network is assumed, as the demo
 * widget is app.demo.rampnetwork.com; API_URL overrides it); without the quote the row is an estimate.
 */

export const RAMP_API_HOSTS: Readonly<Record<ProviderMode, string>> = {
  live: 'https://api.ramp.network',
  test: 'https://api.demo.ramp.network',
};

const RAMP = 'Ramp Network';
/** The payment method the checkout preselects (paymentMethodType CARD). */
const CARD_PAYMENT = 'CARD_PAYMENT';

export interface RampQuoteRequest {
  apiUrl: string;
  hostApiKey: string;
  /** The widget's swapAsset: the asset the checkout buys. */
  swapAsset: string;
}

export async function rampQuote(
  http: ProviderHttpClient,
  { apiUrl, hostApiKey, swapAsset }: RampQuoteRequest,
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = urlWithQuery(`${apiUrl}/api/host-api/v3/onramp/quote/all`, { hostApiKey });
  const body = jsonWithAmount(
    { cryptoAssetSymbol: swapAsset, fiatCurrency: order.currency },
    'fiatValue',
    decimalAmount('Ramp Network quote', order.amount),
    'last',
  );
  const answer = quoteObject(RAMP, await requestQuote(http, RAMP, url, { signal, body }));
  const asset = objectField(RAMP, answer, 'asset');
  expectCode(RAMP, asset, 'symbol', 'USDC');
  expectCode(RAMP, asset, 'chain', 'MATIC');
  expectCode(RAMP, asset, 'address', POLYGON_NATIVE_USDC);
  const decimals = positiveAmount(RAMP, asset, 'decimals', 'number');
  if (decimals.scale !== 0 || decimals.digits !== BigInt(USDC_DECIMALS)) {
    throw malformedQuote(RAMP, `asset.decimals is not ${USDC_DECIMALS}: not the USDC the checkout buys`);
  }
  const card = objectField(RAMP, answer, CARD_PAYMENT);
  expectCode(RAMP, card, 'fiatCurrency', order.currency);
  const baseUnits = positiveAmount(RAMP, card, 'cryptoAmount', 'string');
  if (baseUnits.scale !== 0) throw malformedQuote(RAMP, `${CARD_PAYMENT}.cryptoAmount is not a whole number of base units`);
  return {
    usdc: baseUnits.digits,
    total: plainDecimal(positiveAmount(RAMP, card, 'fiatValue', 'number'), FIAT_DECIMALS),
    currency: order.currency,
  };
}
