import type { CountryCode, CustomerLocation } from '@gateway/domain';
import type { CheckoutOrder, ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { exactQuote, expectCode, objectField, positiveAmount, quoteObject, requestQuote } from '../../support/quote-amounts';

/**
 * Coinbase's Buy Quote: "Create buy quote",
 * https://docs.cdp.coinbase.com/api-reference/rest-api/onramp-offramp/create-buy-quote, and the guide
 * https://docs.cdp.coinbase.com/onramp/coinbase-hosted-onramp/generating-quotes.
 * - POST <API>/onramp/v1/buy/quote, `Authorization: Bearer <CDP JWT>`, a JSON body: `purchaseCurrency`
 *   USDC, `purchaseNetwork` polygon, `paymentAmount` (fiat, "inclusive of fees", two decimals),
 *   `paymentCurrency`, `paymentMethod` CARD (the widget URL's defaultPaymentMethod), `country`
 *   (ISO 3166-1) and `subdivision` (ISO 3166-2, "only required for US": some states restrict assets).
 * - It answers `payment_total`, `payment_subtotal`, `purchase_amount`, `coinbase_fee` and `network_fee`,
 *   each `{value, currency}` with a decimal string, and `quote_id`. `purchase_amount` is the USDC
 *   bought; `payment_total` what the customer pays, fees included, in `paymentCurrency` "if it is
 *   supported, otherwise USD": a total in another currency is no quote for this order.
 *
 * Choices where the docs are open:
 * - The answer's keys: the reference's example is snake_case (as integrators parse it); an older copy
 *   of the same page shows camelCase (`paymentTotal`). Both are read.
 * - Coinbase calls the quote an estimate (the fee may differ between a signed-in and a guest
 *   checkout): it refines the row and the expectation; the chain decides what arrived.
 * - No `destinationAddress`: it is optional, for a one-click-buy URL, which the adapter does not use
 *   (its session token names the wallet), and a band's quote serves every wallet.
 */

const COINBASE = 'Coinbase';
/** Coinbase asks a US customer's state: some states restrict what can be bought. */
const SUBDIVISION_REQUIRED: readonly CountryCode[] = ['US'];

export function coinbaseQuotes(location: CustomerLocation): boolean {
  return !SUBDIVISION_REQUIRED.includes(location.country) || location.subdivision !== undefined;
}

export function coinbaseBuyQuoteRequest(order: Pick<CheckoutOrder, 'amount' | 'currency'> & { location: CustomerLocation }) {
  return {
    purchaseCurrency: 'USDC',
    purchaseNetwork: 'polygon',
    paymentAmount: order.amount,
    paymentCurrency: order.currency,
    paymentMethod: 'CARD',
    country: order.location.country,
    ...(order.location.subdivision !== undefined ? { subdivision: order.location.subdivision } : {}),
  };
}

export async function coinbaseBuyQuote(
  http: ProviderHttpClient,
  { apiUrl, bearer }: { apiUrl: string; bearer: (method: string, url: string) => Promise<string> },
  order: Pick<CheckoutOrder, 'amount' | 'currency'> & { location: CustomerLocation },
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = `${apiUrl}/onramp/v1/buy/quote`;
  const body = await requestQuote(http, COINBASE, url, {
    signal,
    headers: { authorization: await bearer('POST', url) },
    body: JSON.stringify(coinbaseBuyQuoteRequest(order)),
  });
  const answer = quoteObject(COINBASE, body);
  const purchase = amountOf(answer, 'purchase_amount', 'purchaseAmount');
  const total = amountOf(answer, 'payment_total', 'paymentTotal');
  expectCode(COINBASE, purchase, 'currency', 'USDC');
  expectCode(COINBASE, total, 'currency', order.currency);
  return exactQuote(
    positiveAmount(COINBASE, purchase, 'value', 'string'),
    positiveAmount(COINBASE, total, 'value', 'string'),
    order.currency,
  );
}

/** The amount object under its snake_case name, else its camelCase one. */
function amountOf(answer: Record<string, unknown>, snake: string, camel: string): Record<string, unknown> {
  return objectField(COINBASE, answer, snake in answer ? snake : camel in answer ? camel : snake);
}
