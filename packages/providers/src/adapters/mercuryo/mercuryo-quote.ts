import type { CheckoutOrder, ProviderMode, ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { urlWithQuery } from '../../support/checkout-url';
import { requestQuote, exactQuote, expectCode, objectField, positiveAmount, quoteObject } from '../../support/quote-amounts';

/**
 * Mercuryo's buy rate: "buy rate" in Mercuryo's v1.6 widget API (GitHub mercuryoio/api-migration-docs,
 * Widget_API_Mercuryo_v1.6.md, 4.3.3, with its answer example) and the parameter reference
 * https://widget.docs.mercuryo.io/iframe-oor/api-reference/tag/buy/get/widget/buy/rate —
 * GET <API>/v1.6/widget/buy/rate with `widget_id` (the widget's public id, no secret), `from`
 * (fiat), `to` (crypto), `type=buy`, `amount`, `is_total`, `network`, `payment_method`. It answers
 * `{status, data: {currency, amount, fiat_currency, fiat_amount, rate, fee, subtotal, total}}`,
 * decimal strings, `fee`, `subtotal` and `total` keyed by currency code.
 *
 * - API hosts: https://api.mercuryo.io, the sandbox's https://sandbox-api.mrcr.io (Mercuryo's
 *   "Sandbox URLs": the sandbox needs the caller's IPs whitelisted, as its widget does).
 * - `is_total=true`: the widget URL fixes `fiat_amount` as what the customer pays ("Is passed amount
 *   with fee"), so the rate asks what that buys; `data.amount` is the USDC the wallet receives (the
 *   example's `subtotal` in crypto), `total.<fiat>` what the customer pays, fee included.
 * - `network=POLYGON` and `payment_method=card`, as the widget URL fixes its network and Mercuryo's
 *   checkout is a card payment.
 */

export const MERCURYO_API_HOSTS: Readonly<Record<ProviderMode, string>> = {
  live: 'https://api.mercuryo.io',
  test: 'https://sandbox-api.mrcr.io',
};

const MERCURYO = 'Mercuryo';

export async function mercuryoBuyRate(
  http: ProviderHttpClient,
  { apiHost, widgetId, network }: { apiHost: string; widgetId: string; network: string },
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = urlWithQuery(`${apiHost}/v1.6/widget/buy/rate`, {
    from: order.currency,
    to: 'USDC',
    type: 'buy',
    amount: order.amount,
    is_total: 'true',
    widget_id: widgetId,
    network,
    payment_method: 'card',
  });
  const body = await requestQuote(http, 'Mercuryo', url, { signal });
  const data = objectField(MERCURYO, quoteObject(MERCURYO, body), 'data');
  expectCode(MERCURYO, data, 'currency', 'USDC');
  expectCode(MERCURYO, data, 'fiat_currency', order.currency);
  const total = objectField(MERCURYO, data, 'total');
  return exactQuote(
    positiveAmount(MERCURYO, data, 'amount', 'string'),
    positiveAmount(MERCURYO, total, order.currency, 'string'),
    order.currency,
  );
}
