import { Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { decodeProtectedHeader, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { defineProvider, ProviderWebhookError } from '../../provider-contract';
import type { AdapterContext, CheckoutOrder, AdapterDescriptor, ProviderMode } from '../../provider-contract';
import { singleHeader, withinTolerance } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { webhookJson } from '../../support/webhook-json';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { swipeluxWebhookEvent } from './swipelux-webhook';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * Swipelux: a Payment Link, `https://track.swipelux.com/?specificSettings=<URL-encoded JSON of the
 * widget settings>`, built without a server call.
 * - Payment Links: https://docs.swipelux.com/onramp/integration/client-side/payment-links — "pass
 *   any supported widget configuration" as the JSON in `specificSettings`.
 * - Widget settings: https://docs.swipelux.com/onramp/integration/client-side/widget-settings —
 *   apiKey (the publishable key, a UUID), externalId (ours, ≤ 64 characters, echoed in webhooks),
 *   paymentChannel (`CARD_PAYMENT` skips the payment-method choice), availablePayCurrency,
 *   availableReceiveCurrency ({code, protocol}), defaultValues ({email, targetAddress} each
 *   {value, editable}; fiatAmount a number), forceNewTransaction, widgetUrl (default
 *   https://app.swipelux.com; https://staging.swipelux.com "for testing with staging environments").
 * - Webhooks: https://docs.swipelux.com/onramp/integration/server-side/webhooks — the POST body is a
 *   JWS in flattened JSON ({protected, payload, signature}), an ES256 JWT verified with the public
 *   keys Swipelux serves at https://api.swipelux.com/api/merchants/webhookKeys ({"keys": [JWK…]});
 *   claims status, orderId, externalId, eventTs. Swipelux expects HTTP 200 within 10 seconds. The
 *   endpoint is set once in the Merchant Panel (no per-order webhook URL).
 *
 * Why not the server-side order (POST /api/orders/createPrepared → acsUrl): it would lock the amount,
 * but its response is documented only in part (the field is spelled `acsUrl` on one page and `ascUrl`
 * on another), while the Payment Link carries everything we send and needs no call that can fail.
 * The price: the fiat amount is prefilled but stays editable ("always editable" per the prefill
 * page), so the amount delivered may differ from the order; the chain watcher sees what arrives.
 *
 * Choices where the docs are open:
 * - `availableReceiveCurrency: {code: "USDC", protocol: "POLYGON"}`: the docs give only
 *   `{code: "ETH", protocol: "ERC20"}` as an example. Check the protocol name in the Merchant Panel
 *   widget constructor, and that it delivers Circle's USDC 0x3c49…3359, before going live.
 * - The wallet is locked (targetAddress editable: false); the e-mail is prefilled but editable, so a
 *   customer can correct it for KYC.
 * - forceNewTransaction: true, so a customer with an unfinished Swipelux order does not resume it in
 *   place of this payment.
 * - Test mode: the same Payment Link host with widgetUrl set to Swipelux's staging widget; Swipelux
 *   documents no other sandbox.
 * - No return URL: Swipelux documents none for the widget or the Payment Link.
 * - Webhook freshness: eventTs is inside the signed claims; one more than 10 minutes from now is
 *   refused (Swipelux documents no tolerance; its unit is not stated, so a value of 10^12 or more is
 *   read as milliseconds, a smaller one as seconds). Keys are fetched through AdapterContext.http and
 *   kept 10 minutes; a signature no cached key verifies triggers one re-fetch (key rotation), at most
 *   once a minute. When the keys cannot be fetched, verifyWebhook rejects with a plain error (not
 *   ProviderWebhookError), so the gateway answers 5xx and Swipelux delivers again later.
 * - No quote(): searched docs.swipelux.com for a quote or price API: none in the pages read; its
 *   rows show the estimate.
 */

const settings = Type.Object({
  API_KEY: Type.String({
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    description: 'publishable API key (Merchant Panel → Developers → API keys), a UUID; the widget apiKey',
  }),
});

export const SWIPELUX_WEBHOOK_KEYS_URL = 'https://api.swipelux.com/api/merchants/webhookKeys';
export const SWIPELUX_STAGING_WIDGET_URL = 'https://staging.swipelux.com';
export const SWIPELUX_RECEIVE_CURRENCY = { code: 'USDC', protocol: 'POLYGON' } as const;
export const SWIPELUX_WEBHOOK_TOLERANCE_SECONDS = 600;
const KEYS_TTL_MS = 10 * 60_000;
const KEYS_MIN_REFETCH_MS = 60_000;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://track.swipelux.com', test: 'https://track.swipelux.com' },
  docs: 'https://docs.swipelux.com/onramp/integration/client-side/payment-links',
  id: 'swipelux',
  displayName: 'Swipelux',
  currency: 'any',
  minimum: '10',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Swipelux fees": no figure found.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.swipelux.com/onramp/integration/client-side/payment-links' },
  methods: cardOnly('https://docs.swipelux.com/onramp/integration/client-side/payment-links'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("no list of Swipelux's served countries was found"),
  // Per transaction with standard KYC (what a new customer gets); 50,000 USD with enhanced KYC.
  maximum: { amount: '10000', currency: 'USD', source: 'https://docs.swipelux.com/knowledge-base/compliance/transaction-limits' },
  flow: 'url',
  webhook: 'ES256 JWT (flattened JWS body), keys from /api/merchants/webhookKeys',
  delivers: 'native',
  settings,
};

export const swipelux = defineProvider({
  descriptor,
  create(values, context) {
    const keys = webhookKeyCache(context);
    return urlCheckoutAdapter(
      descriptor,
      context,
      (order, host) => swipeluxPaymentLink(host, values.API_KEY, order, context.mode),
      async (rawBody, headers) => {
        // The signature travels in the JSON body, which Swipelux posts as application/json (its
        // example handlers read it with express.json(), which parses nothing else).
        if (!/^application\/json\b/i.test(singleHeader(headers, 'content-type') ?? '')) {
          throw new ProviderWebhookError('Swipelux webhook is not application/json');
        }
        const claims = await verifiedClaims(rawBody, keys, context.now());
        if (!withinTolerance(eventTsMilliseconds(claims.eventTs), 'milliseconds', context.now(), SWIPELUX_WEBHOOK_TOLERANCE_SECONDS)) {
          throw new ProviderWebhookError(
            `Swipelux eventTs is missing or more than ${SWIPELUX_WEBHOOK_TOLERANCE_SECONDS} s from now (a replay, or a clock far off)`,
          );
        }
        return { ...swipeluxWebhookEvent(claims), acknowledgement: jsonAcknowledgement({ received: true }) };
      },
    );
  },
});

/** Stands in for fiatAmount until the JSON is written (see swipeluxPaymentLink). */
const FIAT_AMOUNT_SLOT = 'fiat-amount';

/** The widget settings of the docs' WidgetSettings type, as the Payment Link carries them. */
export function swipeluxPaymentLink(host: string, apiKey: string, order: CheckoutOrder, mode: ProviderMode): string {
  if (!/^(0|[1-9]\d{0,11})(\.\d{1,2})?$/.test(order.amount)) throw new Error(`amount ${order.amount} is not a decimal amount`);
  const settingsJson = JSON.stringify({
    apiKey,
    ...(mode === 'test' ? { widgetUrl: SWIPELUX_STAGING_WIDGET_URL } : {}),
    externalId: order.paymentId,
    paymentChannel: 'CARD_PAYMENT',
    availablePayCurrency: order.currency,
    availableReceiveCurrency: SWIPELUX_RECEIVE_CURRENCY,
    defaultValues: {
      email: { value: order.email, editable: true },
      targetAddress: { value: order.walletAddress, editable: false },
      fiatAmount: FIAT_AMOUNT_SLOT,
    },
    forceNewTransaction: true,
  })
    // Swipelux takes fiatAmount as a JSON number: the checked decimal string goes in verbatim, so
    // the amount never passes through a binary float. The key and its quotes cannot occur inside
    // a string value (JSON escapes quotes there), so only the slot itself is replaced.
    .replace(`"fiatAmount":${JSON.stringify(FIAT_AMOUNT_SLOT)}`, `"fiatAmount":${order.amount}`);
  const url = new URL(host);
  url.searchParams.append('specificSettings', settingsJson);
  return url.toString();
}

/** eventTs as Unix milliseconds in decimal; empty (refused) when it is not a whole non-negative number. */
function eventTsMilliseconds(eventTs: unknown): string {
  if (typeof eventTs !== 'number' || !Number.isSafeInteger(eventTs) || eventTs < 0) return '';
  return String(eventTs >= 1e12 ? eventTs : eventTs * 1000);
}

interface WebhookKeyCache {
  /** The cached keys, fetched when older than the TTL. */
  current(): Promise<JWK[]>;
  /** Fresh keys after a failed verification, or undefined when the cache is too young to re-fetch. */
  refreshed(): Promise<JWK[] | undefined>;
}

function webhookKeyCache(context: AdapterContext): WebhookKeyCache {
  let cached: { keys: JWK[]; fetchedAt: number } | undefined;
  async function fetchKeys(): Promise<JWK[]> {
    const response = await context.http.request({
      method: 'GET',
      call: 'keys',
      url: SWIPELUX_WEBHOOK_KEYS_URL,
      signal: AbortSignal.timeout(10_000),
      retryable: true,
    });
    if (response.statusCode !== 200) throw new Error(`Swipelux webhook keys: HTTP ${response.statusCode}`);
    let body: { keys?: unknown };
    try {
      body = JSON.parse(response.body) as typeof body;
    } catch {
      throw new Error('Swipelux webhook keys: the answer is not JSON');
    }
    const keys = Array.isArray(body.keys) ? (body.keys as JWK[]).filter((key) => key && key.kty === 'EC' && key.crv === 'P-256') : [];
    if (keys.length === 0) throw new Error('Swipelux webhook keys: no P-256 key in the answer');
    cached = { keys, fetchedAt: context.now() };
    return keys;
  }
  return {
    async current() {
      if (cached && context.now() - cached.fetchedAt < KEYS_TTL_MS) return cached.keys;
      return fetchKeys();
    },
    async refreshed() {
      if (cached && context.now() - cached.fetchedAt < KEYS_MIN_REFETCH_MS) return undefined;
      return fetchKeys();
    },
  };
}

async function verifiedClaims(rawBody: Buffer, keys: WebhookKeyCache, nowMs: number): Promise<JWTPayload> {
  const body = webhookJson(rawBody, 'Swipelux webhook body') as Record<string, unknown>;
  const parts = [body?.protected, body?.payload, body?.signature];
  if (!parts.every((part): part is string => typeof part === 'string' && BASE64URL.test(part))) {
    throw new ProviderWebhookError('Swipelux webhook body is not a flattened JWS (protected, payload, signature)');
  }
  const token = parts.join('.');
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new ProviderWebhookError('Swipelux webhook JWS header is not readable');
  }
  const claims = (await verifyWith(token, await keys.current(), kid, nowMs)) ?? (await retryWithFreshKeys(token, keys, kid, nowMs));
  if (!claims) throw new ProviderWebhookError("Swipelux webhook signature does not verify with Swipelux's webhook keys");
  return claims;
}

async function retryWithFreshKeys(
  token: string,
  keys: WebhookKeyCache,
  kid: string | undefined,
  nowMs: number,
): Promise<JWTPayload | undefined> {
  const fresh = await keys.refreshed();
  return fresh ? verifyWith(token, fresh, kid, nowMs) : undefined;
}

/** The claims when one of the keys (the one the header names, if it names one) verifies the token. */
async function verifyWith(token: string, keys: readonly JWK[], kid: string | undefined, nowMs: number): Promise<JWTPayload | undefined> {
  for (const jwk of keys.filter((key) => kid === undefined || key.kid === undefined || key.kid === kid)) {
    try {
      const key = await importJWK(jwk, 'ES256');
      const { payload } = await jwtVerify(token, key, { algorithms: ['ES256'], currentDate: new Date(nowMs) });
      return payload;
    } catch {
      // Not this key (or an expired token): try the next one.
    }
  }
  return undefined;
}
