import { Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider, ProviderCheckoutError, ProviderWebhookError } from '../../provider-contract';
import type {
  CheckoutOrder,
  AdapterDescriptor,
  ProviderMode,
  ProviderStatusQuery,
  ProviderWebhookEvent,
  WebhookHeaders,
} from '../../provider-contract';
import { basicAuthorization } from '../../support/basic-authorization';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { lookupAnswer, malformedAnswer, sessionAnswer } from '../../support/session-call';
import { hmacSha256, safeEqual, singleHeader, withinTolerance } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { urlWithQuery } from '../../support/checkout-url';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { providerAdapter } from '../../support/provider-adapter';
import { ordersIn, sardineOrderEvent, sardineWebhookEvent } from './sardine-order';
import { ASSUMED_TIME_TO_USDC, countriesNotFound } from '../../support/choice-facts';
import { sardineQuote } from './sardine-quote';

/**
 * Sardine's crypto on-ramp, web checkout widget: a client token created server-side, then the
 * hosted checkout opened top-level with it.
 * Docs (docs.payments.sardine.ai): integration_guides/onofframps/web_integration (POST
 * /v1/auth/client-tokens with basic auth clientId:clientSecret → `clientToken`, `expiresAt`; the
 * widget URL with `client_token`, the only required parameter), api_reference/onramp/user-onboarding/
 * get-client-token (body: `referenceId` "regenerated for each call", `identityPrefill`,
 * `paymentMethodTypeConfig`; the token "unusable after expiresAt, normally after 30 min"),
 * guides/…/goingtoproduction (API https://api.sardine.ai, sandbox https://api.sandbox.sardine.ai;
 * checkout https://crypto.sardine.ai, sandbox https://crypto.sandbox.sardine.ai),
 * apireference/onramp/get-orders (GET /v1/orders?referenceId=…, statuses; the order's
 * withdrawal.txHash), api_reference/onramp/quote/get-quote (GET /v1/quotes: query and answer),
 * integration_guides/onofframps/webhooks (events) and
 * integration_guides/nft_checkout/webhooks (the signature: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64>`, HMAC-SHA256 of `id.timestamp.body` keyed by the signing secret
 * after its `whsec_` prefix: the Standard Webhooks scheme).
 * - Token: POST <API>/v1/auth/client-tokens, JSON: referenceId (the checkout's idempotency key: the
 *   payment id, `<payment id>:<n>` for a fresh checkout, so each call has its own), identityPrefill
 *   with the e-mail, paymentMethodTypeConfig with the card types only (us_debit, us_credit,
 *   international_debit, international_credit; the default us_debit for USD, else international_debit).
 * - Checkout: <checkout host>/?client_token=…&address=<wallet>&network=polygon&asset_type=USDC
 *   &fixed_network=polygon&fixed_asset_type=USDC&fiat_amount=…&fiat_currency=…&redirect_url=<receipt page>;
 *   it expires with the token. The `fixed_` pair locks chain and asset: `network` and `asset_type`
 *   alone only preselect them (Sardine's widget configuration reference, linked from Web Integration).
 * - Status: GET <API>/v1/orders?referenceId=<the recorded referenceId, else the payment id>; the newest order speaks.
 * - Quote: Get Quote (sardine-quote.ts), GET <API>/v1/quotes with the same basic auth: USDC on
 *   polygon for the order amount as `total`, by the card type the widget preselects; `quantity` is
 *   the USDC the wallet receives, `total` what the customer pays, the fees taken out of it.
 *
 * Choices where the docs are open, and facts not confirmed on a page read:
 * - The widget parameters other than client_token and redirect_url (address, network, asset_type,
 *   fixed_network, fixed_asset_type, fiat_amount, fiat_currency) are named in Sardine's configuration
 *   reference as the project's review of it (issue 35) reports; the stored copy of that page does not
 *   show them, and the codes `polygon` and `USDC` are unconfirmed.
 * - The on-ramp webhooks page shows no signature and no body: the NFT checkout page's scheme and body
 *   (`eventType` `order.<status>`, `order.id`, `order.referenceId`, `order.status`) are assumed for
 *   the on-ramp too; the signing key is the base64-decoded part after `whsec_` (Standard Webhooks);
 *   5 minutes of tolerance (that scheme's; Sardine states none); any `v1` entry may match.
 * - The shape of the referenceId-filtered list (an array, `{data}`, or one order) is not shown: all are read.
 * - Not retried: Sardine documents no idempotency for tokens. Single use: one referenceId per token,
 *   so a reload after use gets a fresh token. Expiry: `expiresAt`, else 30 minutes.
 * - Which Polygon USDC Sardine sends is not stated (native claimed). The minimum (30 USD) is the
 *   specification's; Sardine's limits are per customer (its pricing page).
 * - The quote's currency (its answer names none) and whether a credit card costs more than the
 *   debit card quoted are not stated: sardine-quote.ts says what it assumes.
 */

export const SARDINE_API_HOSTS: Readonly<Record<ProviderMode, string>> = {
  live: 'https://api.sardine.ai',
  test: 'https://api.sandbox.sardine.ai',
};
export const SARDINE_TOLERANCE_SECONDS = 300;
const TOKEN_LIFETIME_MS = 30 * 60_000;
const CARD_TYPES = ['us_debit', 'us_credit', 'international_debit', 'international_credit'] as const;

const settings = Type.Object({
  CLIENT_ID: Type.String({ pattern: '^[A-Za-z0-9-]{8,64}$', description: 'client id issued by Sardine (basic auth user)' }),
  CLIENT_SECRET: secretSetting({ pattern: '^[A-Za-z0-9-]{8,200}$' }, 'client secret issued by Sardine (basic auth password)'),
  WEBHOOK_SECRET: secretSetting(
    { pattern: '^whsec_[A-Za-z0-9+/]{16,}={0,2}$' },
    "the webhook signing_secret Sardine's integration manager gives (whsec_…); at least 32 characters in production",
  ),
  API_URL: apiUrlSetting('API host; default https://api.sardine.ai (test: https://api.sandbox.sardine.ai)'),
});

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://crypto.sardine.ai', test: 'https://crypto.sandbox.sardine.ai' },
  docs: 'https://docs.payments.sardine.ai/integration_guides/onofframps/web_integration',
  id: 'sardine',
  displayName: 'Sardine',
  currency: 'any',
  minimum: '30',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Sardine fees": no figure found.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.payments.sardine.ai/integration_guides/onofframps/web_integration' },
  methods: {
    offered: [
      { method: 'card' },
      { method: 'apple_pay' },
      { method: 'google_pay' },
      { method: 'bank_transfer', currencies: ['USD', 'EUR'] },
    ],
    source: 'https://docs.payments.sardine.ai/coverage/supported_payment_methods',
  },
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound('docs.payments.sardine.ai/coverage/supported_geos lists markets, but the copy read lost the on-ramp column'),
  flow: 'session',
  webhook: 'HMAC-SHA256, webhook-signature (Standard Webhooks)',
  delivers: 'native',
  settings,
};

export const sardine = defineProvider({
  descriptor,
  create(values, context) {
    const apiUrl = apiUrlOf(values.API_URL, SARDINE_API_HOSTS[context.mode]);
    const authorization = basicAuthorization(values.CLIENT_ID, values.CLIENT_SECRET);
    const signingKey = Buffer.from(values.WEBHOOK_SECRET.slice('whsec_'.length), 'base64');
    return providerAdapter(descriptor, context, {
      async createCheckout(order, { idempotencyKey, signal }) {
        const response = await context.http.request({
          method: 'POST',
          url: `${apiUrl}/v1/auth/client-tokens`,
          headers: { authorization, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(sardineTokenBody(order, idempotencyKey)),
          signal,
          retryable: false,
        });
        const answer = sessionAnswer('Sardine', 'client token', response);
        const token = typeof answer.clientToken === 'string' ? answer.clientToken : '';
        if (!/^[A-Za-z0-9_-]{8,200}$/.test(token)) throw malformedAnswer('Sardine', 'client token', 'no clientToken');
        const expiresAt = tokenExpiry(answer.expiresAt, context.now());
        const url = urlWithQuery(new URL('/', descriptor.hosts[context.mode]), {
          client_token: token,
          address: order.walletAddress,
          network: 'polygon',
          asset_type: 'USDC',
          // Locked: with network and asset_type alone the customer may switch to another chain, and
          // the USDC would land at the same address on a chain the gateway does not watch.
          fixed_network: 'polygon',
          fixed_asset_type: 'USDC',
          fiat_amount: order.amount,
          fiat_currency: order.currency,
          redirect_url: order.returnUrl,
        });
        return { kind: 'redirect', url: url.toString(), expiresAt, singleUse: true, providerReference: idempotencyKey };
      },
      async verifyWebhook(rawBody, headers) {
        verifySardineSignature(rawBody, headers, signingKey, context.now());
        return { ...sardineWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
      },
      status: (query, { signal }) => sardineOrderStatus(context.http, apiUrl, authorization, query, signal),
      quote: (order, { signal }) =>
        sardineQuote(context.http, { apiUrl, authorization, paymentType: defaultCardType(order.currency) }, order, signal),
    });
  },
});

/** The client token's body: one order's reference, the customer's e-mail, card payments only. */
export function sardineTokenBody(order: CheckoutOrder, referenceId: string): Record<string, unknown> {
  if (!/^\d{1,12}\.\d{2}$/.test(order.amount)) {
    throw new ProviderCheckoutError(`Sardine token not asked: the amount ${order.amount.slice(0, 20)} is not a decimal`, 'refused');
  }
  return {
    referenceId,
    identityPrefill: { emailAddress: order.email },
    paymentMethodTypeConfig: { enabled: [...CARD_TYPES], default: defaultCardType(order.currency) },
  };
}

/** The card type the widget preselects, and so the one quoted: a US debit card for USD, else an international one. */
function defaultCardType(currency: CheckoutOrder['currency']): (typeof CARD_TYPES)[number] {
  return currency === 'USD' ? 'us_debit' : 'international_debit';
}

function tokenExpiry(value: unknown, nowMs: number): number {
  if (value === undefined || value === null) return nowMs + TOKEN_LIFETIME_MS;
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(at) || at <= nowMs) throw malformedAnswer('Sardine', 'client token', 'expiresAt is not a time to come');
  // A far-off expiry (a clock or unit error) would keep a dead link in use: no more than four times the documented life.
  return Math.min(at, nowMs + TOKEN_LIFETIME_MS * 4);
}

/**
 * The Standard Webhooks signature Sardine's webhooks page describes: HMAC-SHA256 of
 * `webhook-id.webhook-timestamp.body`, base64, among the space-separated `v1,<signature>` entries of
 * `webhook-signature`; the timestamp within 5 minutes of now.
 */
export function verifySardineSignature(rawBody: Buffer, headers: WebhookHeaders, key: Buffer, nowMs: number): void {
  const id = singleHeader(headers, 'webhook-id');
  const timestamp = singleHeader(headers, 'webhook-timestamp');
  const header = singleHeader(headers, 'webhook-signature');
  if (!id || !timestamp || !header) throw new ProviderWebhookError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (id.length > 256 || id.includes('.')) throw new ProviderWebhookError('webhook-id is not an id');
  if (!withinTolerance(timestamp, 'seconds', nowMs, SARDINE_TOLERANCE_SECONDS)) {
    throw new ProviderWebhookError(`webhook-timestamp is older than ${SARDINE_TOLERANCE_SECONDS} s (or in the future)`);
  }
  const expected = hmacSha256(key, Buffer.concat([Buffer.from(`${id}.${timestamp}.`), rawBody]), 'base64');
  const signatures = header
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  if (!signatures.some((signature) => safeEqual(signature, expected))) throw new ProviderWebhookError('webhook-signature does not match');
}

/** Get Order(s) filtered by our referenceId: null while Sardine has no order with it. */
export async function sardineOrderStatus(
  http: ProviderHttpClient,
  apiUrl: string,
  authorization: string,
  query: ProviderStatusQuery,
  signal: AbortSignal,
): Promise<ProviderWebhookEvent | null> {
  const reference = query.providerReference ?? query.paymentId;
  const url = new URL(`${apiUrl}/v1/orders`);
  url.searchParams.set('referenceId', reference);
  const response = await http.request({
    method: 'GET',
    url: url.toString(),
    headers: { authorization, accept: 'application/json' },
    signal,
    retryable: true,
  });
  if (response.statusCode === 404) return null;
  const orders = ordersIn(lookupAnswer('Sardine', 'order', response)).filter((order) => order.referenceId === reference);
  const latest = orders.sort((a, b) => String(b.createdAt ?? '').localeCompare(String(a.createdAt ?? '')))[0];
  return (latest && sardineOrderEvent(latest)) ?? null;
}
