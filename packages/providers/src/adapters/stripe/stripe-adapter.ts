import { Type } from '@sinclair/typebox';
import { formatUsdc } from '@gateway/domain';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider, ProviderWebhookError } from '../../provider-contract';
import type { CheckoutOrder, AdapterDescriptor, ProviderMode } from '../../provider-contract';
import { basicAuthorization } from '../../support/basic-authorization';
import { checkoutUrlIn, malformedAnswer, sessionAnswer } from '../../support/session-call';
import { hmacSha256, safeEqual, singleHeader, withinTolerance } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { providerAdapter } from '../../support/provider-adapter';
import { stripeWebhookEvent } from './stripe-webhook';
import { ASSUMED_TIME_TO_USDC } from '../../support/choice-facts';
import { stripeOnrampQuote } from './stripe-quote';

/**
 * Stripe fiat-to-crypto onramp (public preview; Stripe approves each platform), standalone hosted:
 * a session created server-side, then a redirect to its `redirect_url`.
 * Docs: docs.stripe.com/api/crypto/onramp_sessions (create, object, statuses),
 * docs.stripe.com/crypto/integration-recipes (curl examples), docs.stripe.com/crypto/standalone-hosted-onramp,
 * docs.stripe.com/webhooks#verify-manually (Stripe-Signature).
 * - POST <API>/v1/crypto/onramp_sessions, form-encoded, HTTP basic auth with the secret key as
 *   user, `Idempotency-Key`. Test mode is an sk_test_ key on the same host.
 * - Answer: `id` (cos_…), `redirect_url` (the hosted onramp), `status`.
 * - Webhook: `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=…]`, each v1 the HMAC-SHA256 of
 *   `t + "." + raw body` keyed by the endpoint's whsec_ secret; 5 minutes of tolerance (Stripe's
 *   libraries' default); any v1 may match (several during a secret roll).
 *
 * Choices where the docs are open:
 * - Event `crypto.onramp_session_updated` with the session as `data.object`: the event name is
 *   not confirmed on a page read (the object's statuses are); other events are ignored.
 * - Sent: wallet_addresses[polygon], lock_wallet_address=true, destination_currencies[]=usdc,
 *   destination_networks[]=polygon, destination_currency=usdc, destination_network=polygon,
 *   source_amount (the decimal string as is), source_currency (lower case, as Stripe writes
 *   currencies), customer_ip_address (the customer's, behind the configured proxies), and
 *   metadata[payment_id]. Not sent: the e-mail (customer_information[email] is not on a page read).
 * - The session call is retried (timeouts, 429, 5xx) with the same Idempotency-Key: Stripe answers
 *   a repeat with the first answer, so a retry never opens a second session. A fresh checkout of
 *   the same payment (the customer's link) comes with another key.
 * - No expiry: Stripe documents none for a session's redirect_url; the checkout is reused on a
 *   reload until the customer starts paying.
 * - rejected (Stripe refused the customer) is `declined`; fulfillment_complete is `paid`; the other
 *   statuses are `pending`.
 * - Hosted onramp host https://crypto.link.com in both modes (test mode's host not confirmed).
 * - Quote: Retrieve CryptoOnrampQuotes (stripe-quote.ts,
 *   docs.stripe.com/api/crypto/onramp_quotes/retrieve), usd only, fees on top of source_amount.
 * - Fees on top of a fixed USDC amount (issue 32, CheckoutOrder.usdc): `destination_amount`
 *   ("The default amount of crypto to exchange into … Setting source_amount is mutually exclusive
 *   with setting destination_amount", docs.stripe.com/api/crypto/onramp_sessions/create) replaces
 *   source_amount, with destination_currency and destination_network set as that page requires;
 *   source_currency stays. Stripe documents no lock for the amount ("Users can update the amount in
 *   the onramp UI"): a customer who lowers it brings less, and the order is then underpaid.
 */

const settings = Type.Object({
  SECRET_KEY: secretSetting(
    { pattern: '^(sk|rk)_(live|test)_[A-Za-z0-9]{8,}$' },
    'secret (or restricted) API key; sk_test_ selects test mode',
  ),
  WEBHOOK_SECRET: secretSetting(
    { pattern: '^whsec_[A-Za-z0-9+/=]{16,}$' },
    'signing secret of the webhook endpoint (whsec_…); verifies Stripe-Signature',
  ),
  API_URL: apiUrlSetting('API host; default https://api.stripe.com'),
});

export const STRIPE_API_URL = 'https://api.stripe.com';
export const STRIPE_SIGNATURE_HEADER = 'stripe-signature';
export const STRIPE_TOLERANCE_SECONDS = 300;

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://crypto.link.com', test: 'https://crypto.link.com' },
  docs: 'https://docs.stripe.com/api/crypto/onramp_sessions',
  id: 'stripe',
  displayName: 'Stripe',
  currency: 'USD',
  minimum: '2',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Stripe documents a transaction fee and a network
  // fee shown to the customer (and fee subsidization) but no rate; an integrator reads its example
  // as 3.00 on a 100.00 purchase. Searched "Stripe crypto onramp fees" in documentation.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.stripe.com/crypto/onramp' },
  // Card, Apple Pay, Google Pay, and ACH for US customers: as an integrator of Stripe's embedded
  // on-ramp documents them (no Stripe page listing them was found).
  methods: {
    offered: [{ method: 'card' }, { method: 'apple_pay' }, { method: 'google_pay' }, { method: 'bank_transfer', currencies: ['USD'] }],
    source: 'https://docs.privy.io/wallets/funding/consumer-onramp-modal/overview',
  },
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  // The onramp serves the US (except Hawaii) and the EU, but USDC on Polygon is not offered in the EU
  // (nor in New York): for this gateway's token, the US. States are not told apart here. Unconfirmed:
  // this is the providers' collected notes' reading of Stripe's page (the copy searched here does
  // not show its availability table); USD-only, as the adapter charges, agrees with it.
  countries: { only: ['US'], source: 'https://docs.stripe.com/crypto/onramp' },
  fixedUsdc: { parameter: 'destination_amount', source: 'https://docs.stripe.com/api/crypto/onramp_sessions/create' },
  flow: 'session',
  // One session call, retried within it (Idempotency-Key).
  checkoutDeadlineMs: 10_000,
  webhook: 'HMAC-SHA256, Stripe-Signature',
  delivers: 'native',
  settings,
};

export const stripe = defineProvider({
  descriptor,
  modeOf(values, requested) {
    const mode: ProviderMode = values.SECRET_KEY.split('_')[1] === 'live' ? 'live' : 'test';
    if (requested !== undefined && requested !== mode) throw new Error(`MODE ${requested} contradicts the ${mode} secret key`);
    return mode;
  },
  create(values, context) {
    const apiUrl = apiUrlOf(values.API_URL, STRIPE_API_URL);
    const authorization = basicAuthorization(values.SECRET_KEY, '');
    return providerAdapter(descriptor, context, {
      quote: (order, { signal }) => stripeOnrampQuote(context.http, { apiUrl, authorization }, order, signal),
      quoteUsdc: (order, { signal }) => stripeOnrampQuote(context.http, { apiUrl, authorization }, order, signal),
      async createCheckout(order, { idempotencyKey, signal }) {
        const response = await context.http.request({
          method: 'POST',
          url: `${apiUrl}/v1/crypto/onramp_sessions`,
          headers: {
            authorization,
            'content-type': 'application/x-www-form-urlencoded',
            'idempotency-key': idempotencyKey,
            accept: 'application/json',
          },
          body: stripeSessionForm(order).toString(),
          signal,
          retryable: true,
        });
        const session = sessionAnswer('Stripe', 'onramp session', response);
        const id = typeof session.id === 'string' && session.id.startsWith('cos_') ? session.id : undefined;
        if (!id) throw malformedAnswer('Stripe', 'onramp session', 'no cos_ id');
        const url = checkoutUrlIn(session.redirect_url, false);
        if (!url) throw malformedAnswer('Stripe', 'onramp session', 'redirect_url is not an https URL');
        return { kind: 'redirect', url, providerReference: id };
      },
      async verifyWebhook(rawBody, headers) {
        const header = singleHeader(headers, STRIPE_SIGNATURE_HEADER);
        if (!header) throw new ProviderWebhookError(`missing ${STRIPE_SIGNATURE_HEADER}`);
        const { timestamp, signatures } = parseSignatureHeader(header);
        if (timestamp === undefined || signatures.length === 0) throw new ProviderWebhookError(`${STRIPE_SIGNATURE_HEADER} has no t or v1`);
        if (!withinTolerance(timestamp, 'seconds', context.now(), STRIPE_TOLERANCE_SECONDS)) {
          throw new ProviderWebhookError(`${STRIPE_SIGNATURE_HEADER} is older than ${STRIPE_TOLERANCE_SECONDS} s (or in the future)`);
        }
        const expected = hmacSha256(values.WEBHOOK_SECRET, Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]), 'hex');
        if (!signatures.some((signature) => safeEqual(signature, expected))) {
          throw new ProviderWebhookError(`${STRIPE_SIGNATURE_HEADER} does not match the body`);
        }
        return { ...stripeWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
      },
    });
  },
});

/**
 * The form of one onramp session: card payment of the order's amount (or, fees on top, of the USDC
 * amount the order fixes), USDC on Polygon to the wallet, locked.
 */
export function stripeSessionForm(order: CheckoutOrder): URLSearchParams {
  return new URLSearchParams([
    ['wallet_addresses[polygon]', order.walletAddress],
    ['lock_wallet_address', 'true'],
    ['destination_currencies[]', 'usdc'],
    ['destination_networks[]', 'polygon'],
    ['destination_currency', 'usdc'],
    ['destination_network', 'polygon'],
    order.usdc === undefined ? ['source_amount', order.amount] : ['destination_amount', formatUsdc(order.usdc)],
    ['source_currency', order.currency.toLowerCase()],
    ['customer_ip_address', order.customerIp],
    ['metadata[payment_id]', order.paymentId],
  ]);
}

function parseSignatureHeader(header: string): { timestamp: string | undefined; signatures: string[] } {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    const [key, value] = [part.slice(0, at).trim(), part.slice(at + 1).trim()];
    if (key === 't') timestamp = value;
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  return { timestamp, signatures };
}
