import type { CheckoutOrder, ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { urlWithQuery } from '../../support/checkout-url';
import { requestQuote, exactQuote, expectCode, objectField, positiveAmount, quoteObject } from '../../support/quote-amounts';

/**
 * Transak's public price: "Get Price", https://docs.transak.com/api/public/get-price (with
 * https://docs.transak.com/docs/get-price-quotecountrycode) — GET <API>/api/v1/pricing/public/quotes
 * on the API host (api.transak.com, staging api-stg.transak.com) with the partner API key as
 * `partnerApiKey` (public: no secret, no access token), `fiatCurrency`, `cryptoCurrency`,
 * `isBuyOrSell=BUY`, `network`, `paymentMethod` and `fiatAmount`. It answers `{response: {…}}`
 * with JSON numbers: `fiatAmount` (what the customer pays; Transak takes its fees out of it),
 * `cryptoAmount` (what the wallet receives), `totalFee`, `conversionPrice`, …
 *
 * - The parameters are the widget's (transak-adapter.ts): USDC on polygon by card, so the price is
 *   the one the checkout will show. `quoteCountryCode` is not sent: the gateway does not know the
 *   customer's country when it quotes for a page (the price of Transak's default region).
 */

const TRANSAK = 'Transak';

export async function transakPrice(
  http: ProviderHttpClient,
  { apiUrl, apiKey }: { apiUrl: string; apiKey: string },
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = urlWithQuery(`${apiUrl}/api/v1/pricing/public/quotes`, {
    partnerApiKey: apiKey,
    fiatCurrency: order.currency,
    cryptoCurrency: 'USDC',
    isBuyOrSell: 'BUY',
    network: 'polygon',
    paymentMethod: 'credit_debit_card',
    fiatAmount: order.amount,
  });
  const body = await requestQuote(http, 'Transak', url, { signal });
  const price = objectField(TRANSAK, quoteObject(TRANSAK, body), 'response');
  expectCode(TRANSAK, price, 'fiatCurrency', order.currency);
  expectCode(TRANSAK, price, 'cryptoCurrency', 'USDC');
  expectCode(TRANSAK, price, 'network', 'polygon');
  expectCode(TRANSAK, price, 'isBuyOrSell', 'BUY');
  return exactQuote(
    positiveAmount(TRANSAK, price, 'cryptoAmount', 'number'),
    positiveAmount(TRANSAK, price, 'fiatAmount', 'number'),
    order.currency,
  );
}
