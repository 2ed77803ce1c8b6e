import { Type } from '@sinclair/typebox';
import { defineProvider, ProviderWebhookError } from '../../provider-contract';
import type { CheckoutOrder, AdapterDescriptor, ProviderMode, ProviderStatusQuery, ProviderWebhookEvent } from '../../provider-contract';
import { basicAuthorization } from '../../support/basic-authorization';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { checkoutUrlIn, isObject, malformedAnswer, sessionAnswer } from '../../support/session-call';
import { hmacSha256, safeEqual, singleHeader } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { providerAdapter } from '../../support/provider-adapter';
import { transfiOrderEvent, transfiWebhookEvent } from './transfi-webhook';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * TransFi ramp ("Ramp flow for web3 businesses"): an order created server-side, then a redirect
 * to TransFi's hosted checkout (`paymentUrl`), where the customer pays and TransFi sends the crypto
 * to the wallet of the order.
 * Docs: docs.transfi.com/docs/creating-onramp-order-1 (create), …/understanding-the-workflow-of-onramp-transaction
 * (statuses, 12-hour expiry), …/get-order-status-of-fiat-payin (Get Order, v2), …/webhook-events-onramp,
 * …/webhook-signature and …/webhooks (X-Transfi-Hmac-Hash), …/get-your-credentials and
 * docs.transfi.com/reference/authentication-and-headers (Basic auth, MID), …/api-concepts (hosts).
 * - POST <API>/v2/orders/deposit, JSON, `Authorization: Basic base64(username:password)`, header
 *   `MID` → {"orderId": "OR-…", "paymentUrl", "partnerContext", "redirectUrl"}.
 * - GET <API>/v2/orders/{orderId}, same headers → {"data": {"orderId", "status", …}}.
 * - Webhook: JSON {entityType, entityId, status, user, order}, `X-Transfi-Hmac-Hash` the hex
 *   HMAC-SHA256 of the raw body keyed by the webhook secret of the dashboard. It signs no time
 *   (`webhookUntimed`): no staleness check is possible; each order and status is recorded once,
 *   and only forward. Its order's `walletAddress` and `cryptoTicker` are the destination.
 * - API hosts https://sandbox-api.transfi.com (sandbox) and https://api.transfi.com; each is the
 *   API_URL setting's default for its mode. Sandbox and production credentials differ.
 *
 * Choices where the docs are open, and facts not confirmed:
 * - The v2 ramp order, not v3 `POST /v3/orders` (orderType onramp): v3 wants the `userId` of a user
 *   created and KYC-verified beforehand, which a guest checkout does not have; the v2 order takes
 *   the e-mail and leaves the rest to the hosted checkout.
 * - Sent: paymentType `card` (the pages show `bank_transfer`; `card` is inferred from the payment
 *   method pages' CARD), purposeCode `personal` (v3's on-ramp example; v2's list not read), amount
 *   (a JSON number written from the decimal string as is), currency, email, redirectUrl (the receipt
 *   page), sourceUrl (the payment host), partnerId (the checkout's idempotency key: TransFi calls it
 *   the idempotency key of an order, so a fresh checkout of the payment has its own),
 *   partnerContext {paymentId} (echoed back), withdrawDetails {cryptoTicker `USDCPOLYGON`,
 *   walletAddress}. `USDCPOLYGON` is inferred from v3's `USDTPOLYGON` and the webhook sample's
 *   `USDTTRC20` (Fetching Currencies lists the codes; not called). Not sent: firstName, lastName,
 *   country (the gateway does not know them; the hosted page asks), the customer's IP (no on-ramp
 *   page asks for it).
 * - The create call is not retried: whether v2 de-duplicates a repeated partnerId is not stated.
 *   Get Order is (a read).
 * - The checkout expires 12 hours after creation (orders expire after 12 hours unpaid); it is not
 *   single use: the payment URL serves the same order on a reload.
 * - Webhooks match by TransFi's order id (recorded at checkout), then the wallet; the sample event
 *   shows no partnerContext, so our payment id is read from it only when present. No transaction
 *   hash field is documented in the event.
 * - fund_failed is `declined`; asset_settle_failed, asset_deposit_failed and expired are `failed`;
 *   fund_settled, asset_processing and asset_deposited are `charged`; asset_settled is `paid`.
 * - Checkout hosts: sandbox-pay-widget.transfi.com (the examples' host); pay-widget.transfi.com in
 *   production is inferred. USD only with a 70 USD minimum are the specification's terms (TransFi's own
 *   per-country limits come from its payment-method API, not called); native USDC is unconfirmed.
 * - No quote(): searched docs.transfi.com for a quote or price API: none in the pages read; its rows
 *   show the estimate.
 */

const settings = Type.Object({
  USERNAME: Type.String({ minLength: 1, description: 'API username (dashboard, Settings → Integration)' }),
  PASSWORD: secretSetting({ minLength: 8 }, 'API password, the merchant key (shown once when generated)'),
  MID: Type.String({ pattern: '^[A-Za-z0-9_-]{3,64}$', description: 'merchant id, sent as the MID header on every call' }),
  WEBHOOK_SECRET: secretSetting({ minLength: 16 }, 'webhook secret key (dashboard): verifies X-Transfi-Hmac-Hash'),
  API_URL: apiUrlSetting('API host; default https://api.transfi.com (live) or https://sandbox-api.transfi.com (test)'),
});

export const TRANSFI_API_HOSTS: Readonly<Record<ProviderMode, string>> = {
  live: 'https://api.transfi.com',
  test: 'https://sandbox-api.transfi.com',
};
export const TRANSFI_SIGNATURE_HEADER = 'x-transfi-hmac-hash';
/** An unpaid order expires after 12 hours. */
export const TRANSFI_ORDER_LIFETIME_MS = 12 * 3600_000;
/** USDC on Polygon in TransFi's ticker naming (USDTPOLYGON, USDTTRC20); unconfirmed. */
export const TRANSFI_CRYPTO_TICKER = 'USDCPOLYGON';

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://pay-widget.transfi.com', test: 'https://sandbox-pay-widget.transfi.com' },
  docs: 'https://docs.transfi.com/docs/creating-onramp-order-1',
  id: 'transfi',
  displayName: 'TransFi',
  currency: 'USD',
  minimum: '70',
  minimumCurrency: 'USD',
  // TransFi's charges: a processing fee of 0 % to 8 % of the order value (or a fixed fee per order,
  // out of scope), agreed with each business; gas fees come on top, not as a percentage.
  fees: { minBps: 0, maxBps: 800, source: 'https://transfi.uk/charges' },
  methods: cardOnly('https://docs.transfi.com/docs/ramp'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound('docs.transfi.com/docs/supported-countries-1 rates countries; the copy read was cut before its end'),
  flow: 'session',
  // One order call.
  checkoutDeadlineMs: 8_000,
  webhook: 'HMAC-SHA256, X-Transfi-Hmac-Hash',
  webhookUntimed: true,
  reportsDestination: true,
  delivers: 'native',
  settings,
};

export const transfi = defineProvider({
  descriptor,
  create(values, context) {
    const apiUrl = apiUrlOf(values.API_URL, TRANSFI_API_HOSTS[context.mode]);
    const headers = {
      authorization: basicAuthorization(values.USERNAME, values.PASSWORD),
      mid: values.MID,
      accept: 'application/json',
    };
    return providerAdapter(descriptor, context, {
      async createCheckout(order, { idempotencyKey, signal }) {
        const response = await context.http.request({
          method: 'POST',
          url: `${apiUrl}/v2/orders/deposit`,
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(transfiOrderRequest(order, idempotencyKey)),
          signal,
          retryable: false,
        });
        const answer = sessionAnswer('TransFi', 'order', response);
        const orderId = typeof answer.orderId === 'string' && /^OR-[A-Za-z0-9-]+$/.test(answer.orderId) ? answer.orderId : undefined;
        if (!orderId) throw malformedAnswer('TransFi', 'order', 'no OR- orderId');
        const url = checkoutUrlIn(answer.paymentUrl, false);
        if (!url) throw malformedAnswer('TransFi', 'order', 'paymentUrl is not an https URL');
        return { kind: 'redirect', url, providerReference: orderId, expiresAt: context.now() + TRANSFI_ORDER_LIFETIME_MS };
      },
      async verifyWebhook(rawBody, webhookHeaders) {
        const signature = singleHeader(webhookHeaders, TRANSFI_SIGNATURE_HEADER);
        if (!signature) throw new ProviderWebhookError(`missing ${TRANSFI_SIGNATURE_HEADER}`);
        if (!safeEqual(signature, hmacSha256(values.WEBHOOK_SECRET, rawBody, 'hex'))) {
          throw new ProviderWebhookError(`${TRANSFI_SIGNATURE_HEADER} does not match the body`);
        }
        return { ...transfiWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
      },
      status: (query, { signal }) => transfiOrderStatus(context.http, apiUrl, headers, query, signal),
    });
  },
});

/** The ramp order of one checkout: card, the order's amount, USDC on Polygon to the wallet. */
export function transfiOrderRequest(order: CheckoutOrder, idempotencyKey: string): Record<string, unknown> {
  return {
    paymentType: 'card',
    purposeCode: 'personal',
    amount: JSON.parse(order.amount) as number,
    currency: order.currency,
    email: order.email,
    redirectUrl: order.returnUrl,
    sourceUrl: new URL(order.returnUrl).origin,
    partnerId: idempotencyKey,
    partnerContext: { paymentId: order.paymentId },
    withdrawDetails: { cryptoTicker: TRANSFI_CRYPTO_TICKER, walletAddress: order.walletAddress },
  };
}

/**
 * Get Order by TransFi's order id (the checkout's provider reference). Without one TransFi knows no
 * order of ours it could be asked about (it documents no look-up by partnerId): null.
 */
async function transfiOrderStatus(
  http: ProviderHttpClient,
  apiUrl: string,
  headers: Readonly<Record<string, string>>,
  query: ProviderStatusQuery,
  signal: AbortSignal,
): Promise<ProviderWebhookEvent | null> {
  if (!query.providerReference) return null;
  const response = await http.request({
    method: 'GET',
    url: `${apiUrl}/v2/orders/${encodeURIComponent(query.providerReference)}`,
    headers,
    signal,
    retryable: true,
  });
  if (response.statusCode === 404) return null;
  if (response.statusCode !== 200) throw new Error(`TransFi answered Get Order with HTTP ${response.statusCode}`);
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    throw new Error('TransFi answered Get Order with a body that is not JSON');
  }
  const data = isObject(body) && isObject(body.data) ? body.data : undefined;
  if (!data || typeof data.status !== 'string') throw new Error('TransFi answered Get Order without data.status');
  const read = transfiOrderEvent({ ...data, orderId: query.providerReference }, data.status);
  // A status word the mapping does not know says nothing yet: asked again later.
  return read.kind === 'event' ? read.event : null;
}
