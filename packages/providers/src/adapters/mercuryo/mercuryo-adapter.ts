import { Type } from '@sinclair/typebox';
import { defineProvider, ProviderWebhookError, type CheckoutOrder, type AdapterDescriptor } from '../../provider-contract';
import { hmacSha256, safeEqual, sha512, singleHeader } from '../../support/signing';
import { textAcknowledgement } from '../../support/webhook-acknowledgement';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { urlWithQuery } from '../../support/checkout-url';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { MERCURYO_API_HOSTS, mercuryoBuyRate } from './mercuryo-quote';
import { mercuryoWebhookEvent } from './mercuryo-webhook';
import { ASSUMED_TIME_TO_USDC, countriesNotFound } from '../../support/choice-facts';

/**
 * Mercuryo: a signed widget URL.
 * - URL signature v2: https://widget.docs.mercuryo.io/guide/integration/security —
 *   `"v2:" + hex(SHA-512(address + secret + ip + merchant_transaction_id))`, no separators, a plain
 *   hash (no HMAC); `ip` is the customer's IP; `address` and `merchant_transaction_id` must also be
 *   URL parameters or the widget answers "Signature is invalid" when a payment method is chosen.
 * - Parameters: https://widget.docs.mercuryo.io/guide/flows/on-ramp and
 *   https://widget.docs.mercuryo.io/guide/features/recurring-payments (widget_id, type, currency,
 *   fix_currency, fix_network, fiat_currency, fiat_amount, address, merchant_transaction_id,
 *   redirect_url, signature); fix_fiat_currency, fix_fiat_amount and email from the v1.6 parameter
 *   table (GitHub mercuryoio/api-migration-docs, Widget_API_Mercuryo_v1.6.md).
 * - Callbacks: https://widget.docs.mercuryo.io/guide/monitoring/callbacks — header `X-Signature`
 *   = hex HMAC-SHA256(Sign Key, body); delivered once answered with HTTP 200 (retried for 3 days).
 *   No timestamp is signed, so a replayed callback cannot be told from a retry: it only re-states
 *   a status Mercuryo really sent, and a `paid` is final in the gateway whatever follows.
 * - Test mode: the sandbox widget https://sandbox-exchange.mrcr.io (Mercuryo's "Sandbox URLs"),
 *   with the sandbox widget's own id, secret and sign key; the keys do not say their mode. The
 *   sandbox needs the caller's IPs whitelisted and lists only BTC testnet and Sepolia ETH/USDT.
 *
 * Choices where the docs are open:
 * - `currency=USDC` with `fix_network=POLYGON`: POLYGON is Mercuryo's network code in GET
 *   /v1.6/lib/currencies (the docs name ETHEREUM, TRON, BINANCESMARTCHAIN as examples; POLYGON is
 *   what Tangem's Mercuryo integration maps Polygon to). That list also gives the USDC contract:
 *   check it names native USDC 0x3c49…3359 before going live.
 * - The callback's HMAC is checked over the raw body exactly as received. The docs disagree:
 *   widget.docs.mercuryo.io says to remove all whitespace before hashing, its copy at
 *   mercuryo-widget-partner.apidocumentation.com and the 2023 docs (GitHub
 *   mercuryoio/api-migration-docs, "the request body must not change") say to hash the body
 *   unchanged. Callbacks carry values with spaces ("created_at": "2021-03-09 20:05:20"), so the
 *   two cannot both hold, and a third-party integration in production verifies the raw bytes.
 *   Only that one form is accepted.
 * - No card preselection: the widget documents no payment-method parameter.
 * - The amount and currency are locked (fix_fiat_amount, fix_fiat_currency) so the customer pays
 *   what the order says.
 * - Quote: the v1.6 buy rate (mercuryo-quote.ts, GET /v1.6/widget/buy/rate with the widget id).
 */

const UUID = '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$';

const settings = Type.Object({
  WIDGET_ID: Type.String({ pattern: UUID, description: 'widget ID (Dashboard → Widgets), sent as widget_id' }),
  // The partner sets it in the dashboard: whoever guesses a short one signs checkout URLs in our name.
  SECRET_KEY: secretSetting(
    { pattern: '^\\S{8,256}$' },
    "the widget's Secret (Dashboard → Widgets → the widget → Secret), signs the widget URL (signature v2); at least 32 characters " +
      'in production',
  ),
  SIGN_KEY: secretSetting(
    { pattern: '^\\S{8,256}$' },
    "the widget's callback Sign Key (Dashboard → Widgets → the widget), verifies X-Signature on callbacks",
  ),
  API_URL: apiUrlSetting('API host of the buy rate; default https://api.mercuryo.io, https://sandbox-api.mrcr.io in test mode'),
});

export const MERCURYO_SIGNATURE_HEADER = 'x-signature';
/** Mercuryo's network code for Polygon PoS (GET /v1.6/lib/currencies). */
export const MERCURYO_POLYGON_NETWORK = 'POLYGON';

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://exchange.mercuryo.io', test: 'https://sandbox-exchange.mrcr.io' },
  docs: 'https://widget.docs.mercuryo.io/guide/integration/security',
  id: 'mercuryo',
  displayName: 'Mercuryo',
  currency: 'any',
  minimum: '30',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range, from integrators' figures (2.95 %, "up to 3.8 %",
  // 3.96 %). Searched "Mercuryo fees card": its help pages found name no fee, and its public rates
  // API (GET /v1.6/public/rates) folds the fee into the rate.
  fees: { minBps: 295, maxBps: 400, source: 'https://help.mercuryo.io/en/articles/3931686-transaction-questions' },
  // Cards (Mastercard, Visa), Apple Pay and Google Pay where the browser supports them.
  methods: {
    offered: [{ method: 'card' }, { method: 'apple_pay' }, { method: 'google_pay' }],
    source: 'https://widget.docs.mercuryo.io/iframe-oor',
  },
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("Mercuryo's widget pages refer to its list of countries without one in the copy read"),
  // Unverified (light-KYC) customers may buy up to 699 EUR in all.
  lightChecksUpTo: { amount: '699', currency: 'EUR', source: 'https://widget.docs.mercuryo.io/iframe-oor' },
  flow: 'signed-url',
  webhook: 'HMAC-SHA256, X-Signature',
  delivers: 'native',
  settings,
};

export const mercuryo = defineProvider({
  descriptor,
  create(values, context) {
    const rate = {
      apiHost: apiUrlOf(values.API_URL, MERCURYO_API_HOSTS[context.mode]),
      widgetId: values.WIDGET_ID,
      network: MERCURYO_POLYGON_NETWORK,
    };
    const adapter = urlCheckoutAdapter(
      descriptor,
      context,
      (order, host) => signedMercuryoUrl(host, values.WIDGET_ID, values.SECRET_KEY, order),
      async (rawBody, headers) => {
        const signature = singleHeader(headers, MERCURYO_SIGNATURE_HEADER) ?? '';
        if (!/^[0-9a-f]{64}$/.test(signature)) throw new ProviderWebhookError(`missing or malformed ${MERCURYO_SIGNATURE_HEADER}`);
        if (!safeEqual(signature, hmacSha256(values.SIGN_KEY, rawBody, 'hex'))) {
          throw new ProviderWebhookError(`${MERCURYO_SIGNATURE_HEADER} does not match the body`);
        }
        // Delivered once Mercuryo gets HTTP 200; the body is not read.
        return { ...mercuryoWebhookEvent(rawBody), acknowledgement: textAcknowledgement('OK') };
      },
    );
    return { ...adapter, quote: (order, { signal }) => mercuryoBuyRate(context.http, rate, order, signal) };
  },
});

/** Signature v2: the plain SHA-512 of the four values run together, prefixed with `v2:`. */
export function mercuryoSignature(address: string, secret: string, ip: string, merchantTransactionId: string): string {
  return `v2:${sha512(`${address}${secret}${ip}${merchantTransactionId}`, 'hex')}`;
}

export function signedMercuryoUrl(host: string, widgetId: string, secret: string, order: CheckoutOrder): string {
  return urlWithQuery(host, {
    widget_id: widgetId,
    type: 'buy',
    currency: 'USDC',
    fix_currency: 'true',
    fix_network: MERCURYO_POLYGON_NETWORK,
    fiat_currency: order.currency,
    fix_fiat_currency: 'true',
    fiat_amount: order.amount,
    fix_fiat_amount: 'true',
    address: order.walletAddress,
    merchant_transaction_id: order.paymentId,
    email: order.email,
    redirect_url: order.returnUrl,
    // Signed over the values themselves (not their URL encoding), with the customer's IP as Mercuryo sees it.
    signature: mercuryoSignature(order.walletAddress, secret, order.customerIp, order.paymentId),
  }).toString();
}
