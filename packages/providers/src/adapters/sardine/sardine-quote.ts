import type { CheckoutOrder, ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { urlWithQuery } from '../../support/checkout-url';
import { requestQuote, exactQuote, expectCode, positiveAmount, quoteObject } from '../../support/quote-amounts';

/**
 * Sardine's quote: "Get Quote" in the on-ramp API reference,
 * https://docs.payments.sardine.ai/api_reference/onramp/quote/get-quote (its OpenAPI, onramp.yaml,
 * operation get-trade-quote; the older copy at apireference/onramp/get-quote is the same) —
 * GET <API>/v1/quotes with basic auth, query `asset_type` and `network` (required), `total` (a
 * number, required: "Amount the user wants to buy or sell"), `currency` (default USD), `paymentType`
 * (ach, debit, credit, us_debit, international_debit, international_credit), `quote_type` (buy,
 * sell; default buy), `walletAddress` (optional). It answers JSON numbers `quantity` ("Amount of
 * crypto that will be purchased"), `price` (per unit of crypto), `subtotal` ("Fiat value of the
 * crypto that the user will receive, net of fees"), `transactionFee`, `networkFee`, `total` ("Total
 * cost incurred by the user"), and strings `assetType`, `network`, `expiresIn`.
 *
 * - Sent as the checkout buys (sardine-adapter.ts): asset_type USDC, network polygon, the order
 *   amount as `total` in its `currency`, `paymentType` the card type the widget preselects,
 *   `quote_type=buy`. No `walletAddress`: a quote prices an amount band, not one customer.
 * - What the amounts mean: the example answers a `total` of 100 with a `subtotal` of 94 and fees of
 *   2 and 4 beside it, and its `quantity` times `price` is the 94: the fees come out of the total
 *   the customer pays, and `quantity` is what is bought with the rest. `quantity` is read as the
 *   USDC the wallet receives, `total` as what the customer pays.
 *
 * Choices where the reference is open:
 * - The answer names no fiat currency: the quote is taken to be in the `currency` asked.
 * - The reference types `subtotal` and the fees `integer` and swaps the two fees' descriptions
 *   (`networkFee` "paid to Sardine", `transactionFee` "gas"); neither is read here.
 * - No error answer is documented: any status but 200 is Sardine refusing, its `message` kept if any.
 * - `expiresIn` (a string, absent from the example) is not read: the quote service keeps a quote
 *   for its own cache period.
 * - Whether Sardine prices a credit card above the debit card quoted here is not stated; the widget
 *   lets the customer pick either.
 */

const SARDINE = 'Sardine';

export interface SardineQuoteRequest {
  apiUrl: string;
  /** Basic clientId:clientSecret, as the client token call sends it. */
  authorization: string;
  /** The card type the checkout's widget preselects for the order's currency. */
  paymentType: string;
}

export async function sardineQuote(
  http: ProviderHttpClient,
  { apiUrl, authorization, paymentType }: SardineQuoteRequest,
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = urlWithQuery(`${apiUrl}/v1/quotes`, {
    asset_type: 'USDC',
    network: 'polygon',
    total: order.amount,
    currency: order.currency,
    paymentType,
    quote_type: 'buy',
  });
  const body = await requestQuote(http, SARDINE, url, { signal, headers: { authorization } });
  const fields = quoteObject(SARDINE, body);
  expectCode(SARDINE, fields, 'assetType', 'USDC');
  expectCode(SARDINE, fields, 'network', 'polygon');
  return exactQuote(
    positiveAmount(SARDINE, fields, 'quantity', 'number'),
    positiveAmount(SARDINE, fields, 'total', 'number'),
    order.currency,
  );
}
