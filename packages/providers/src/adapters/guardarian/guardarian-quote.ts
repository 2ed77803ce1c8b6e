import type { CheckoutOrder, ProviderQuote } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { decimalAmount } from '../../support/amount-json';
import { urlWithQuery } from '../../support/checkout-url';
import { USDC_DECIMALS } from '@gateway/domain';
import { expectCode, objectField, positiveAmount, quoteObject, requestQuote, scaledDown } from '../../support/quote-amounts';

/**
 * Guardarian's "Get estimate": GET <API>/v1/estimate with `x-api-key`, named on guardarian.com/api-doc
 * ("method for estimating the exchange amount"), whose fields are on its OpenAPI page
 * (https://api-payments.guardarian.com/v1/api-docs), not readable here. What it takes and answers is
 * taken from integrators' code, which agrees: the query `from_amount`, `from_currency`,
 * `from_network`, `to_currency`, `to_network` (the same names and values as the transaction this
 * checkout creates), and an answer whose `value` (a decimal string) is the amount received. One
 * integrator's tests keep an answer captured from Guardarian's staging API: beside `value` it has
 * `converted_amount` (from_amount less `service_fees`, in from_currency), `network_fee` (in
 * to_currency) and `estimated_exchange_rate` (about value / from_amount). So the fees come out of
 * from_amount, which the customer pays, and `value` is what the wallet receives after them.
 *
 * - Sent as the checkout's transaction is (guardarian-adapter.ts): the order amount and currency,
 *   the currency as from_network, USDC on MATIC.
 * - Read: `value` as the USDC (truncated to base units); the total is the order amount sent, the
 *   answer carrying none. A `to_currency`, `to_network` or `from_currency`, and `converted_amount`'s
 *   currency, where present, must be the ones asked.
 * - Open: whether the estimate prices the card category the checkout preselects (VISA_MC) or
 *   Guardarian's default. Some integrators add `deposit_category`, `fees_included` or `type`, whose
 *   values and defaults no page read gives; none is sent.
 */

const GUARDARIAN = 'Guardarian';

export async function guardarianEstimate(
  http: ProviderHttpClient,
  { apiUrl, apiKey }: { apiUrl: string; apiKey: string },
  order: Pick<CheckoutOrder, 'amount' | 'currency'>,
  signal: AbortSignal,
): Promise<ProviderQuote> {
  const url = urlWithQuery(`${apiUrl}/v1/estimate`, {
    from_amount: decimalAmount('Guardarian estimate', order.amount),
    from_currency: order.currency,
    from_network: order.currency,
    to_currency: 'USDC',
    to_network: 'MATIC',
  });
  const fields = quoteObject(GUARDARIAN, await requestQuote(http, GUARDARIAN, url, { signal, headers: { 'x-api-key': apiKey } }));
  expectCode(GUARDARIAN, fields, 'from_currency', order.currency);
  expectCode(GUARDARIAN, fields, 'to_currency', 'USDC');
  expectCode(GUARDARIAN, fields, 'to_network', 'MATIC');
  if (fields.converted_amount !== undefined)
    expectCode(GUARDARIAN, objectField(GUARDARIAN, fields, 'converted_amount'), 'currency', order.currency);
  return {
    usdc: scaledDown(positiveAmount(GUARDARIAN, fields, 'value', 'string'), USDC_DECIMALS),
    total: order.amount,
    currency: order.currency,
  };
}
