import type { CheckoutOrder, ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { urlWithQuery } from '../../support/checkout-url';
import { requestQuote, exactQuote, expectCode, positiveAmount, quoteObject } from '../../support/quote-amounts';

/**
 * Banxa's quote: "Get a Quote", https://docs.banxa.com/products/hosted-checkout/docs/api-integration/get-a-quote —
 * GET <API>/{partnerRef}/v2/quotes/buy with the v2 API key as `x-api-key` (as Get Order), `fiat`,
 * `crypto`, `blockchain`, `paymentMethodId` and `fiatAmount`. It answers decimal strings:
 * `paymentMethodId`, `cryptoAmount` (what the wallet receives), `fiatAmount`, `processingFee`, `networkFee`.
 *
 * - Sent as the referral checkout buys (banxa-adapter.ts): crypto USDC on blockchain MATIC, card
 *   (`debit-credit-card`, one of the page's payment method ids), the order amount as `fiatAmount`.
 * - `fiatAmount` is read as what the customer pays: the page's example answers the amount asked
 *   with the fees itemized beside it (fees taken out of it, as the referral checkout charges the
 *   amount it is given); the page does not say so in words.
 * - The page asks integrators not to cache its answers ("call this endpoint immediately before
 *   displaying a price"). The quote service caches every provider's quote for QUOTE_CACHE_MS (a
 *   minute by default): a shop whose Banxa agreement forbids that sets QUOTE_CACHE_MS lower.
 */

const BANXA = 'Banxa';

export interface BanxaQuoteRequest {
  apiHost: string;
  partnerRef: string;
  apiKey: string;
}

export async function banxaBuyQuote(
  http: ProviderHttpClient,
  { apiHost, partnerRef, apiKey }: BanxaQuoteRequest,
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = urlWithQuery(`${apiHost}/${encodeURIComponent(partnerRef)}/v2/quotes/buy`, {
    fiat: order.currency,
    crypto: 'USDC',
    blockchain: 'MATIC',
    paymentMethodId: 'debit-credit-card',
    fiatAmount: order.amount,
  });
  const body = await requestQuote(http, 'Banxa', url, { signal, headers: { 'x-api-key': apiKey } });
  const fields = quoteObject(BANXA, body);
  expectCode(BANXA, fields, 'paymentMethodId', 'debit-credit-card');
  return exactQuote(
    positiveAmount(BANXA, fields, 'cryptoAmount', 'string'),
    positiveAmount(BANXA, fields, 'fiatAmount', 'string'),
    order.currency,
  );
}
