import { Type, type Static } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider, ProviderWebhookError } from '../../provider-contract';
import type { AdapterContext, CheckoutOrder, AdapterDescriptor, ProviderMode } from '../../provider-contract';
import { hmacSha256, refuseStale, safeEqual, singleHeader } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { urlWithQuery } from '../../support/checkout-url';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { banxaBuyQuote } from './banxa-quote';
import { banxaOrderEvent, banxaWebhookNotice } from './banxa-webhook';
import { ASSUMED_TIME_TO_USDC } from '../../support/choice-facts';

/**
 * Banxa Hosted Checkout, referral integration: a plain URL on the partner's subdomain.
 * - URL: https://docs.banxa.com/products/hosted-checkout/docs/referral-integration/constructing-referral-urls
 *   — `https://{partnerRef}.banxa.com?…`, sandbox `https://{partnerRef}.banxa-sandbox.com?…`,
 *   values URL-encoded, nothing signed.
 * - Parameters: https://docs.banxa.com/products/hosted-checkout/docs/referral-integration/supported-parameters
 *   (walletAddress, blockchain, coinType, fiatType, fiatAmount, email, returnUrl).
 * - Webhooks: https://docs.banxa.com/products/hosted-checkout/docs/transaction-lifecycle/webhooks and
 *   …/getting-started/authentication-and-environments — `Authorization: Bearer
 *   KEY:SIGNATURE:NONCE`, KEY the HMAC key, SIGNATURE = hex HMAC-SHA256(HMAC secret, "POST\n" + the URI path of
 *   OUR webhook endpoint + "\n" + NONCE + "\n" + body), the same scheme as Banxa's API signing
 *   (published vectors in BanxaOfficial/php-sdk and node-sdk tests) with our path in place of
 *   Banxa's. Banxa wants a 200.
 * - The webhook names the order only; as the docs advise, the order is read back with Get Order
 *   (https://docs.banxa.com/products/hosted-checkout/openapi/other/retrieve-a-specific-order):
 *   `GET https://api.banxa.com/{partner}/v2/orders/{orderId}` (sandbox api.banxa-sandbox.com)
 *   with `x-api-key` — Hosted Checkout's v2 endpoints take the API key, HMAC being reserved for
 *   KYC sharing and webhooks. The two are separate credentials in Banxa's dashboard (the page
 *   above: "API key authentication" and "HMAC authentication"), hence three settings: API_KEY,
 *   HMAC_KEY, HMAC_SECRET. Its status and wallet are what we record, so a forged or replayed
 *   webhook can at most make us read Banxa's own truth again.
 *
 * Choices where the docs are open: `blockchain=MATIC` is Polygon's code (the code integrators use,
 *   e.g. ShapeShift's Banxa adapter "source of truth per banxa"; Banxa's page lists only ETH, BTC,
 *   BNB as examples) with `coinType=USDC`; which USDC Banxa sends on Polygon is not documented:
 *   native 0x3c49…3359 is assumed, check the order's `crypto.address` in sandbox before going live.
 *   The nonce is read as a Unix time in seconds (10 digits), milliseconds (13, as the docs say) or
 *   microseconds (16, as Banxa's agent-skill notes recommend for requests), and a webhook whose
 *   nonce is more than 15 minutes from now is refused: Banxa documents no tolerance, and since the
 *   order is re-read from Banxa anyway a replay gains nothing, so the window is kept wide enough
 *   for Banxa's retries and clock skew. The signed path is the pathname of our webhook URL (the
 *   docs say "URI path"; ours has no query). No card pre-selection (`paymentMethodId` values are
 *   per partner account) and no order reference (the referral URL takes none: `externalCustomerId`
 *   identifies a returning customer for KYC, so our payment id travels only in `returnUrl`).
 *   Minimum 20 USD (Banxa publishes no fixed card minimum).
 * - Quote: Get a Quote (banxa-quote.ts,
 *   docs.banxa.com/products/hosted-checkout/docs/api-integration/get-a-quote) with the v2 API key.
 */

const BANXA_AUTHORIZATION = /^Bearer ([^:\s]{1,256}):([0-9a-fA-F]{64}):(\d{10}|\d{13}|\d{16})$/;
export const BANXA_WEBHOOK_TOLERANCE_SECONDS = 900;
const BANXA_POLYGON_BLOCKCHAIN = 'MATIC';
const API_HOSTS: Readonly<Record<ProviderMode, string>> = { live: 'https://api.banxa.com', test: 'https://api.banxa-sandbox.com' };
/** Deadline of the Get Order look-up made while Banxa waits for our answer. */
const GET_ORDER_DEADLINE_MS = 15_000;

const settings = Type.Object({
  PARTNER_REF: Type.String({
    pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$',
    description:
      'partner reference Banxa assigns on onboarding: the checkout subdomain ({partnerRef}.banxa.com) and the partner in API paths',
  }),
  API_KEY: secretSetting({ pattern: '^\\S{8,256}$' }, 'v2 API key: the x-api-key of Get Order'),
  HMAC_KEY: Type.String({
    pattern: '^[^:\\s]{8,256}$',
    description: "HMAC credentials' key: the key named in a webhook's Authorization (not the v2 API key)",
  }),
  HMAC_SECRET: secretSetting({ pattern: '^\\S{8,256}$' }, "HMAC credentials' secret: Banxa signs webhooks with it"),
  API_URL: apiUrlSetting('API host of quotes and Get Order; default https://api.banxa.com, https://api.banxa-sandbox.com in test mode'),
});
export type BanxaSettings = Static<typeof settings>;

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://banxa.com', test: 'https://banxa-sandbox.com' },
  docs: 'https://docs.banxa.com/products/hosted-checkout/docs/referral-integration/supported-parameters',
  id: 'banxa',
  displayName: 'Banxa',
  currency: 'any',
  minimum: '20',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Banxa fees card" in documentation and
  // pages: Banxa's docs and FAQ give no fee figure; the source is its on-ramp overview.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.banxa.com/products/hosted-checkout/docs/on-ramp-off-ramp/on-ramp-overview' },
  // PayPal for EUR (EU/EEA); bank transfers: PayID and NPP (AUD), iDEAL (EUR).
  methods: {
    offered: [
      { method: 'card' },
      { method: 'apple_pay' },
      { method: 'google_pay' },
      { method: 'paypal', currencies: ['EUR'] },
      { method: 'bank_transfer', currencies: ['AUD', 'EUR'] },
    ],
    source: 'https://docs.banxa.com/products/hosted-checkout/docs/reference/supported-payment-methods',
  },
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  // Its unsupported countries, and Canada, where Banxa sells no stablecoins.
  countries: {
    except: [
      'AF',
      'BY',
      'CF',
      'TD',
      'CN',
      'CG',
      'CD',
      'CU',
      'GW',
      'HT',
      'IR',
      'IQ',
      'KP',
      'LB',
      'LY',
      'MY',
      'ML',
      'MD',
      'MM',
      'NI',
      'NG',
      'NE',
      'SH',
      'RU',
      'SO',
      'SS',
      'LK',
      'SD',
      'SY',
      'TN',
      'UA',
      'VE',
      'YE',
      'ZW',
      'CA',
    ],
    source: 'https://docs.banxa.com/products/hosted-checkout/docs/reference/geographic-and-asset-restrictions',
  },
  // Express KYC (no document, no liveness) up to 500 EUR, for a first order in Europe and most of the world.
  lightChecksUpTo: { amount: '500', currency: 'EUR', source: 'https://docs.banxa.com/reference/global-kyc-framework' },
  flow: 'url',
  webhook: 'HMAC-SHA256, Authorization: Bearer key:signature:nonce',
  delivers: 'native',
  settings,
};

export const banxa = defineProvider({
  descriptor,
  create(values, context) {
    const webhookPath = new URL(context.webhookUrl).pathname;
    const apiHost = apiUrlOf(values.API_URL, API_HOSTS[context.mode]);
    const quoteRequest = { apiHost, partnerRef: values.PARTNER_REF, apiKey: values.API_KEY };
    const adapter = urlCheckoutAdapter(
      descriptor,
      context,
      (order) => banxaReferralUrl(context.mode, values.PARTNER_REF, order),
      async (rawBody, headers) => {
        const match = BANXA_AUTHORIZATION.exec(singleHeader(headers, 'authorization') ?? '');
        if (!match) throw new ProviderWebhookError('missing or malformed Authorization (Bearer key:signature:nonce)');
        const [, key = '', signature = '', nonce = ''] = match;
        if (!safeEqual(key, values.HMAC_KEY)) throw new ProviderWebhookError('Authorization names another API key than the HMAC key');
        const expected = banxaWebhookSignature(values.HMAC_SECRET, webhookPath, nonce, rawBody);
        if (!safeEqual(signature.toLowerCase(), expected))
          throw new ProviderWebhookError('Authorization signature does not match the body');
        refuseStale('Authorization nonce', ...nonceTime(nonce), context.now(), BANXA_WEBHOOK_TOLERANCE_SECONDS);
        const acknowledgement = jsonAcknowledgement({ received: true });
        const notice = banxaWebhookNotice(rawBody);
        if (notice.kind === 'ignored') return { ...notice, acknowledgement };
        const order = await getBanxaOrder(context, values, notice.orderId);
        return { ...banxaOrderEvent(order, notice.orderId), acknowledgement };
      },
    );
    return { ...adapter, quote: (order, { signal }) => banxaBuyQuote(context.http, quoteRequest, order, signal) };
  },
});

export function banxaReferralUrl(mode: ProviderMode, partnerRef: string, order: CheckoutOrder): string {
  return urlWithQuery(`https://${partnerRef}.${new URL(descriptor.hosts[mode]).hostname}/`, {
    coinType: 'USDC',
    blockchain: BANXA_POLYGON_BLOCKCHAIN,
    walletAddress: order.walletAddress,
    fiatType: order.currency,
    fiatAmount: order.amount,
    email: order.email,
    returnUrl: order.returnUrl,
  }).toString();
}

/** Banxa's HMAC over a POST: hex HMAC-SHA256(secret, "POST\n" + path + "\n" + nonce + "\n" + body). */
export function banxaWebhookSignature(secret: string, path: string, nonce: string, body: Buffer): string {
  return hmacSha256(secret, Buffer.concat([Buffer.from(`POST\n${path}\n${nonce}\n`, 'utf8'), body]), 'hex');
}

/** The nonce as a time withinTolerance reads: seconds, milliseconds, or microseconds cut to milliseconds. */
function nonceTime(nonce: string): [string, 'seconds' | 'milliseconds'] {
  if (nonce.length === 10) return [nonce, 'seconds'];
  return [nonce.slice(0, 13), 'milliseconds'];
}

async function getBanxaOrder(context: AdapterContext, values: BanxaSettings, orderId: string): Promise<unknown> {
  const url = `${apiUrlOf(values.API_URL, API_HOSTS[context.mode])}/${encodeURIComponent(values.PARTNER_REF)}/v2/orders/${encodeURIComponent(orderId)}`;
  const response = await context.http.request({
    method: 'GET',
    url,
    headers: { accept: 'application/json', 'x-api-key': values.API_KEY },
    signal: AbortSignal.timeout(GET_ORDER_DEADLINE_MS),
    retryable: true,
  });
  // Not a refusal of the webhook (it is authentic): a failure here answers 5xx, so Banxa sends it again.
  if (response.statusCode !== 200) throw new Error(`Banxa Get Order for ${orderId} answered HTTP ${response.statusCode}`);
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    throw new Error(`Banxa Get Order for ${orderId} answered with a body that is not JSON`);
  }
}
