import { Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider } from '../../provider-contract';
import type { CheckoutOrder, AdapterDescriptor, ProviderMode, ProviderStatusQuery, ProviderWebhookEvent } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { checkoutUrlIn, isObject, lookupAnswer, malformedAnswer, sessionAnswer } from '../../support/session-call';
import { decimalAmount, jsonWithAmount } from '../../support/amount-json';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { providerAdapter } from '../../support/provider-adapter';
import { guardarianTransactionEvent, guardarianWebhookEvent } from './guardarian-transaction';
import { guardarianEstimate } from './guardarian-quote';
import { ASSUMED_TIME_TO_USDC, countriesNotFound } from '../../support/choice-facts';

/**
 * Guardarian, by API: a transaction created server-side, then a redirect to its `redirect_url`.
 * Docs: https://docs.guardarian.com/docs/category/reference (x-api-key; the customer's IP in
 * X-Forwarded-For when the call does not come from the customer's device), the Postman reference
 * https://documenter.getpostman.com/view/12908416/TVRhaoYL (one create-transaction call per minute per
 * source IP), guardarian.notion.site "Skipping payment method flow" (deposit.payment_category,
 * deposit.skip_choose_payment_category), "Redirects after final statuses" (redirects.successful,
 * cancelled, failed), "Guardarian pre-auth" (customer.contact_info.email), and
 * https://docs.guardarian.com/docs/webhooks (statuses, body shape; no signature).
 * - POST <API>/v1/transaction, JSON, `x-api-key`, `X-Forwarded-For: <customer IP>`.
 * - Answer: `id` (a number), `redirect_url` (the hosted checkout), `status`.
 * - Status: GET <API>/v1/transaction/{id} with `x-api-key`, the transaction as the webhook's payload.
 * - Webhooks: configured by Guardarian's support per partner, sent unsigned (the page offers an IP
 *   allow-list only): `webhookUnsigned`, each one a hint on which the gateway asks `status()`.
 *
 * Choices where the docs are open, and facts not confirmed on a page read:
 * - Sent: from_amount (a JSON number written from the decimal string, never through a float),
 *   from_currency and from_network = the order's currency (as the docs' examples do for fiat),
 *   to_currency USDC, to_network MATIC (Guardarian's code for Polygon: not confirmed on a page read;
 *   its currencies API says it, and is not asked at boot), payout_info.payout_address with
 *   skip_choose_payout_address, deposit.payment_category VISA_MC with skip_choose_payment_category
 *   (the category's value is not on a page read), customer.contact_info.email, the receipt page as
 *   all three redirects, external_partner_link_id = our payment id (the field is not on a page read;
 *   the look-up goes by Guardarian's id, which the answer gives, so nothing depends on it).
 * - A preset payout address may need a permission on the partner account (third-party reports, not
 *   Guardarian's pages): without it the customer would be asked for an address. Unconfirmed.
 * - Not retried: Guardarian documents no idempotency key, and a repeat would open a second
 *   transaction and spend the customer's one call a minute.
 * - No expiry and not single use: the docs give neither for a redirect_url (a transaction expires,
 *   status `expired`, after a time they do not state); a reload reuses it.
 * - Hosts: API https://api-payments.guardarian.com, checkout https://payments.guardarian.com; test
 *   mode (PROVIDER_GUARDARIAN_MODE=test) api-payments-staging / payments-staging.guardarian.com,
 *   not confirmed on a Guardarian page.
 * - The descriptor's minimum (20 USD, the specification's) is not confirmed: the min-max-range API says it per pair.
 * - Quote: GET <API>/v1/estimate (guardarian-quote.ts says what of it is on Guardarian's pages and
 *   what is from integrators' code and an answer captured from its staging API).
 */

export const GUARDARIAN_API_HOSTS: Readonly<Record<ProviderMode, string>> = {
  live: 'https://api-payments.guardarian.com',
  test: 'https://api-payments-staging.guardarian.com',
};

const settings = Type.Object({
  API_KEY: secretSetting({ pattern: '^[A-Za-z0-9-]{16,128}$' }, 'partner API key, sent as x-api-key'),
  API_URL: apiUrlSetting('API host; default https://api-payments.guardarian.com (test: https://api-payments-staging.guardarian.com)'),
});

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://payments.guardarian.com', test: 'https://payments-staging.guardarian.com' },
  docs: 'https://docs.guardarian.com/docs/category/reference',
  id: 'guardarian',
  displayName: 'Guardarian',
  currency: 'any',
  minimum: '20',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Guardarian fees card" in documentation
  // and pages: no figure found; the source is its API reference.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.guardarian.com/docs/category/reference' },
  // Cards (Visa, Mastercard), Apple Pay, Google Pay, SEPA (EUR) and UK Faster Payments (GBP), as an
  // integrator of Guardarian's widget lists them.
  methods: {
    offered: [
      { method: 'card' },
      { method: 'apple_pay' },
      { method: 'google_pay' },
      { method: 'bank_transfer', currencies: ['EUR', 'GBP'] },
    ],
    source: 'https://docs.koinbay.com/services/buy-and-sell-with-card/guardarian',
  },
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("no list of Guardarian's served countries was read"),
  flow: 'session',
  // One transaction call.
  checkoutDeadlineMs: 8_000,
  webhook: 'none: unsigned (a hint; the transaction is looked up)',
  webhookUnsigned: true,
  delivers: 'native',
  settings,
};

export const guardarian = defineProvider({
  descriptor,
  create(values, context) {
    const apiUrl = apiUrlOf(values.API_URL, GUARDARIAN_API_HOSTS[context.mode]);
    return providerAdapter(descriptor, context, {
      async createCheckout(order, { signal }) {
        const response = await context.http.request({
          method: 'POST',
          url: `${apiUrl}/v1/transaction`,
          headers: {
            'x-api-key': values.API_KEY,
            'x-forwarded-for': order.customerIp,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: guardarianTransactionBody(order),
          signal,
          retryable: false,
        });
        const transaction = sessionAnswer('Guardarian', 'transaction', response);
        const id = typeof transaction.id === 'number' || typeof transaction.id === 'string' ? String(transaction.id) : '';
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw malformedAnswer('Guardarian', 'transaction', 'no id');
        const url = checkoutUrlIn(transaction.redirect_url, false);
        if (!url) throw malformedAnswer('Guardarian', 'transaction', 'redirect_url is not an https URL');
        return { kind: 'redirect', url, providerReference: id };
      },
      async verifyWebhook(rawBody) {
        return { ...guardarianWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
      },
      status: (query, { signal }) => guardarianTransactionStatus(context.http, apiUrl, values.API_KEY, query, signal),
      quote: (order, { signal }) => guardarianEstimate(context.http, { apiUrl, apiKey: values.API_KEY }, order, signal),
    });
  },
});

/** The JSON of one transaction: the order's amount by card, USDC on Polygon to the wallet, no choice left to the customer. */
export function guardarianTransactionBody(order: CheckoutOrder): string {
  const fields = {
    from_currency: order.currency,
    from_network: order.currency,
    to_currency: 'USDC',
    to_network: 'MATIC',
    payout_info: { payout_address: order.walletAddress, skip_choose_payout_address: true },
    deposit: { payment_category: 'VISA_MC', skip_choose_payment_category: true },
    customer: { contact_info: { email: order.email } },
    redirects: { successful: order.returnUrl, cancelled: order.returnUrl, failed: order.returnUrl },
    external_partner_link_id: order.paymentId,
  };
  // Guardarian takes the amount as a JSON number.
  return jsonWithAmount(fields, 'from_amount', decimalAmount('Guardarian transaction', order.amount), 'first');
}

/** GET /v1/transaction/{id}: null until a checkout gave Guardarian's id, or while it knows none (404). */
export async function guardarianTransactionStatus(
  http: ProviderHttpClient,
  apiUrl: string,
  apiKey: string,
  query: ProviderStatusQuery,
  signal: AbortSignal,
): Promise<ProviderWebhookEvent | null> {
  if (!query.providerReference) return null;
  const response = await http.request({
    method: 'GET',
    url: `${apiUrl}/v1/transaction/${encodeURIComponent(query.providerReference)}`,
    headers: { 'x-api-key': apiKey, accept: 'application/json' },
    signal,
    retryable: true,
  });
  if (response.statusCode === 404) return null;
  const body = lookupAnswer('Guardarian', 'transaction', response);
  if (!isObject(body)) throw new Error('Guardarian answered the transaction look-up with something other than an object');
  if (String(body.id) !== query.providerReference) throw new Error('Guardarian answered the look-up with another transaction');
  const event = guardarianTransactionEvent(body);
  // Guardarian's id names the payment even where the answer omits our reference.
  return event ? { ...event, match: { ...event.match, providerReference: query.providerReference } } : null;
}
