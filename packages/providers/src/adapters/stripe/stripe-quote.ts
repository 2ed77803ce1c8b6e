import { formatUsdc, type CurrencyCode } from '@gateway/domain';
import { ProviderCheckoutError, type ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { urlWithQuery } from '../../support/checkout-url';
import { requestQuote, exactQuote, expectCode, malformedQuote, positiveAmount, quoteObject } from '../../support/quote-amounts';

/**
 * Stripe's onramp quotes: "Retrieve CryptoOnrampQuotes", https://docs.stripe.com/api/crypto/onramp_quotes/retrieve
 * (guide: https://docs.stripe.com/crypto/quotes-api, public preview) —
 * GET <API>/v1/crypto/onramp/quotes with HTTP basic auth (the secret key as user, as the session
 * call), `source_amount`, `source_currency`, `destination_currencies[]`, `destination_networks[]`.
 * It answers `destination_network_quotes.<network>`: a list of quotes, each with
 * `destination_currency`, `destination_amount` (what the wallet receives) and `source_total_amount`
 * ("the total amount of fiat that will be charged to the user, including fees"), all decimal strings.
 *
 * - `source_currency`: the reference says "We only support usd currently"; an order in another
 *   currency is refused here without a call (the quote service then shows the estimate).
 * - `source_amount` is the order amount, as the session sends it: Stripe adds its fees on top, so
 *   `source_total_amount` is above the order amount, and that is what the customer pays.
 * - Fees on top of a fixed USDC amount (issue 32): `destination_amount` instead ("A string
 *   representation of the amount of destination_currency to be purchased. If destination_amount is
 *   set, source_amount must be null", with a single destination currency and network, as here), as
 *   the session then sends it; `source_total_amount` is what the customer pays for it.
 */

/** What the quote fixes: the fiat amount (the order's, fees added by Stripe) or the USDC amount delivered (base units). */
export type StripeQuoteAmount = { amount: string; currency: CurrencyCode } | { usdc: bigint; currency: CurrencyCode };

const STRIPE = 'Stripe';

export async function stripeOnrampQuote(
  http: ProviderHttpClient,
  { apiUrl, authorization }: { apiUrl: string; authorization: string },
  order: StripeQuoteAmount,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  if (order.currency !== 'USD') throw new ProviderCheckoutError(`Stripe quotes only usd (asked for ${order.currency})`, 'refused');
  const url = urlWithQuery(`${apiUrl}/v1/crypto/onramp/quotes`, {
    ...('usdc' in order ? { destination_amount: formatUsdc(order.usdc) } : { source_amount: order.amount }),
    source_currency: 'usd',
    'destination_currencies[]': 'usdc',
    'destination_networks[]': 'polygon',
  });
  const body = await requestQuote(http, 'Stripe', url, { signal, headers: { authorization } });
  const fields = quoteObject(STRIPE, body);
  expectCode(STRIPE, fields, 'source_currency', 'usd');
  const networks = fields.destination_network_quotes;
  const polygon = typeof networks === 'object' && networks !== null ? (networks as Record<string, unknown>).polygon : undefined;
  if (!Array.isArray(polygon)) throw malformedQuote(STRIPE, 'destination_network_quotes.polygon is not a list');
  const usdc = polygon.find(
    (entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null && entry.destination_currency === 'usdc',
  );
  if (!usdc) throw malformedQuote(STRIPE, 'no usdc quote on polygon');
  return exactQuote(
    positiveAmount(STRIPE, usdc, 'destination_amount', 'string'),
    positiveAmount(STRIPE, usdc, 'source_total_amount', 'string'),
    order.currency,
  );
}
