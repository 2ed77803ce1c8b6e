import { randomUUID } from 'node:crypto';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { Type } from '@sinclair/typebox';
import { defineProvider, type CheckoutOrder, type AdapterDescriptor, type ProviderMode } from '../../provider-contract';
import { jsonWithAmount } from '../../support/amount-json';
import { NO_EVENT_STORE } from '../../support/provider-event-store';
import { malformedAnswer, sessionAnswer } from '../../support/session-call';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { providerAdapter } from '../../support/provider-adapter';
import { consumeSimplexEvents, simplexPaymentStatus, simplexWebhookEvent } from './simplex-events';
import { cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * Simplex (by Nuvei) Wallet API: a quote, then the payment data, then the customer's browser POSTs
 * a form to Simplex's checkout (`/payments/new`), which takes the card.
 * Docs: https://integrations.simplex.com/wallet-api-integration (quote, partner data, payment form,
 * events), https://integrations.simplex.com/docs/poll-method (the events: read, store, delete each),
 * and Simplex's supported-cryptocurrencies list for the asset code.
 * - POST <API>/wallet/merchant/v2/quote, `Authorization: ApiKey <key>`, JSON: end_user_id,
 *   digital_currency, fiat_currency, requested_currency, requested_amount (a JSON number),
 *   wallet_id (the partner name), client_ip, payment_methods → quote_id, user_id, digital_money,
 *   fiat_money, valid_until.
 * - POST <API>/wallet/merchant/v2/payments/partner/data, same authorization: account_details
 *   (app_provider_id, app_version_id, app_end_user_id, email, signup_login {ip, timestamp}) and
 *   transaction_details.payment_details (quote_id, payment_id: a UUID we choose, order_id,
 *   destination_wallet {currency, address}, original_http_ref_url) → `is_kyc_update_required`.
 * - The form: POST <checkout>/payments/new with version=1, partner, payment_flow_type=wallet,
 *   return_url_success, return_url_fail, quote_id, payment_id.
 * - Hosts: API https://backend-wallet-api.simplexcc.com (live), https://sandbox.test-simplexcc.com
 *   (test); checkout https://checkout.simplexcc.com (live), https://sandbox.test-simplexcc.com (test).
 * - Events: consumeEvents empties the events queue into the gateway's store; status() reads the
 *   kept copy (simplex-events.ts).
 *
 * Choices where the docs are open, and facts not confirmed:
 * - The asset code `USDC-MATIC` for USDC on Polygon is not on a Simplex page read (wallets'
 *   integrations use it); SIMPLEX_ASSET lets the operator set Simplex's code. Which Polygon USDC
 *   Simplex sends (native or USDC.e) is not stated: `native` is claimed, and the watcher follows both.
 * - end_user_id and app_end_user_id are our payment id (we know no customer account), so Simplex's
 *   events name our payment in partner_end_user_id; order_id is our payment id too.
 * - payment_id is a fresh UUID per checkout (Simplex refuses a payment id used before): it is the
 *   checkout's providerReference. The two calls are not retried: neither is documented idempotent.
 * - requested_currency is the fiat currency: the customer pays exactly the order's amount.
 * - The checkout expires with the quote (`valid_until`, when given) and is single use (its payment id).
 * - Webhooks: Simplex documents no signature on the events it can push, so a pushed event is a
 *   hint (descriptor.webhookUnsigned): the gateway then asks status(), which reads the kept events.
 * - The customer's IP goes in the quote's client_ip and in signup_login.ip.
 * - No quote() for the page: Simplex's quote (above) is made for one customer (end_user_id,
 *   client_ip) with each checkout; a quote shared by an amount band would send a made-up customer,
 *   so its rows show the estimate.
 */

const settings = Type.Object({
  API_KEY: secretSetting({ minLength: 16 }, 'Wallet API key (sent as Authorization: ApiKey <key>)'),
  PARTNER: Type.String({
    pattern: '^[A-Za-z0-9_.-]{2,64}$',
    description: 'partner name Simplex assigned: the quote wallet_id, the form partner and app_provider_id',
  }),
  ASSET: Type.Optional(Type.String({ pattern: '^[A-Z0-9-]{2,20}$', description: "Simplex's code of USDC on Polygon; default USDC-MATIC" })),
  API_URL: apiUrlSetting(
    'Wallet API host; default https://backend-wallet-api.simplexcc.com (live) or https://sandbox.test-simplexcc.com (test)',
  ),
  CHECKOUT_URL: Type.Optional(
    Type.String({
      pattern: '^https://[^/?#\\s]+/?$',
      description:
        'checkout host the form posts to; default https://checkout.simplexcc.com (live) or https://sandbox.test-simplexcc.com (test)',
    }),
  ),
});

export const SIMPLEX_HOSTS: Readonly<Record<ProviderMode, { api: string; checkout: string }>> = {
  live: { api: 'https://backend-wallet-api.simplexcc.com', checkout: 'https://checkout.simplexcc.com' },
  test: { api: 'https://sandbox.test-simplexcc.com', checkout: 'https://sandbox.test-simplexcc.com' },
};
export const SIMPLEX_ASSET = 'USDC-MATIC';

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: SIMPLEX_HOSTS.live.checkout, test: SIMPLEX_HOSTS.test.checkout },
  docs: 'https://integrations.simplex.com/wallet-api-integration',
  id: 'simplex',
  displayName: 'Simplex',
  currency: 'any',
  minimum: '50',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Simplex fees": integrators quote 5 %
  // with a 10 USD minimum (out of scope); Simplex's own pages found give no figure. Its quote
  // (quote()) states the real fee.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://integrations.simplex.com/wallet-api-integration' },
  methods: cardOnly('https://www.simplex.com/faq/'),
  // "Usually, payments are processed within the hour" (up to 24 hours with more verification).
  timeToUsdc: { minutes: 60, source: 'https://www.simplex.com/faq/' },
  countries: countriesNotFound("Simplex serves anyone but the countries on the FATF's high-risk list, which it links rather than lists"),
  flow: 'session',
  // The quote and the payment data calls.
  checkoutDeadlineMs: 12_000,
  webhook: 'none: pushed events are unsigned hints',
  webhookUnsigned: true,
  delivers: 'native',
  settings,
};

export const simplex = defineProvider({
  descriptor,
  create(values, context) {
    const apiUrl = apiUrlOf(values.API_URL, SIMPLEX_HOSTS[context.mode].api);
    const checkoutUrl = apiUrlOf(values.CHECKOUT_URL, SIMPLEX_HOSTS[context.mode].checkout);
    const asset = values.ASSET ?? SIMPLEX_ASSET;
    const authorization = `ApiKey ${values.API_KEY}`;
    const events = context.events ?? NO_EVENT_STORE;
    const post = (call: 'quote' | 'session', path: string, body: string, signal: AbortSignal) =>
      context.http.request({
        method: 'POST',
        call,
        url: `${apiUrl}${path}`,
        headers: { authorization, 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal,
        retryable: false,
      });
    return providerAdapter(descriptor, context, {
      async createCheckout(order, { signal }) {
        const quote = sessionAnswer(
          'Simplex',
          'quote',
          await post('quote', '/wallet/merchant/v2/quote', simplexQuoteBody(order, values.PARTNER, asset), signal),
        );
        const quoteId = typeof quote.quote_id === 'string' && quote.quote_id !== '' ? quote.quote_id : undefined;
        if (!quoteId) throw malformedAnswer('Simplex', 'quote', 'no quote_id');
        const validUntil = typeof quote.valid_until === 'string' ? Date.parse(quote.valid_until) : Number.NaN;
        const paymentId = randomUUID();
        const data = sessionAnswer(
          'Simplex',
          'payment data',
          await post(
            'session',
            '/wallet/merchant/v2/payments/partner/data',
            JSON.stringify(simplexPaymentData(order, { partner: values.PARTNER, asset, quoteId, paymentId, now: context.now() })),
            signal,
          ),
        );
        if (typeof data.is_kyc_update_required !== 'boolean') throw malformedAnswer('Simplex', 'payment data', 'no is_kyc_update_required');
        return {
          kind: 'form',
          action: `${checkoutUrl}/payments/new`,
          fields: {
            version: '1',
            partner: values.PARTNER,
            payment_flow_type: 'wallet',
            return_url_success: order.returnUrl,
            return_url_fail: order.returnUrl,
            quote_id: quoteId,
            payment_id: paymentId,
          },
          ...(Number.isFinite(validUntil) && validUntil > context.now() ? { expiresAt: validUntil } : {}),
          singleUse: true,
          providerReference: paymentId,
        };
      },
      async verifyWebhook(rawBody) {
        return { ...simplexWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
      },
      status: (query) => simplexPaymentStatus(events, query),
      consumeEvents: ({ signal }) => consumeSimplexEvents(context.http, apiUrl, authorization, events, signal),
    });
  },
});

/**
 * The quote body. requested_amount is a JSON number in Simplex's API: the order's decimal string
 * is written into the JSON as it is (it never passes through a float).
 */
export function simplexQuoteBody(order: CheckoutOrder, partner: string, asset: string): string {
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(order.amount)) throw new Error(`not a fiat amount: ${order.amount}`);
  const fields = {
    end_user_id: order.paymentId,
    digital_currency: asset,
    fiat_currency: order.currency,
    requested_currency: order.currency,
    wallet_id: partner,
    client_ip: order.customerIp,
    payment_methods: ['credit_card'],
  };
  return jsonWithAmount(fields, 'requested_amount', order.amount, 'first');
}

export function simplexPaymentData(
  order: CheckoutOrder,
  { partner, asset, quoteId, paymentId, now }: { partner: string; asset: string; quoteId: string; paymentId: string; now: number },
): Record<string, unknown> {
  return {
    account_details: {
      app_provider_id: partner,
      app_version_id: '1',
      app_end_user_id: order.paymentId,
      email: order.email,
      signup_login: { ip: order.customerIp, timestamp: new Date(now).toISOString() },
    },
    transaction_details: {
      payment_details: {
        quote_id: quoteId,
        payment_id: paymentId,
        order_id: order.paymentId,
        destination_wallet: { currency: asset, address: order.walletAddress },
        original_http_ref_url: order.returnUrl,
      },
    },
  };
}
