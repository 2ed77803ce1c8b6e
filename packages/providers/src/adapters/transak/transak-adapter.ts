import { createHash } from 'node:crypto';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { Type } from '@sinclair/typebox';
import { formatUsdc } from '@gateway/domain';
import { jwtVerify } from 'jose';
import { defineProvider, ProviderCheckoutError, ProviderWebhookError } from '../../provider-contract';
import type { AdapterContext, CheckoutOrder, AdapterDescriptor, ProviderMode } from '../../provider-contract';
import type { ProviderToken } from '../../support/shared-token-store';
import { checkoutUrlIn, isObject, malformedAnswer, sessionAnswer } from '../../support/session-call';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { webhookJson } from '../../support/webhook-json';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { transakPrice } from './transak-quote';
import { secretSetting } from '../../support/secret-setting';
import { providerAdapter } from '../../support/provider-adapter';
import { transakWebhookEvent } from './transak-webhook';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * Transak: a widget session the server creates, then a redirect to its single-use URL.
 * Docs: docs.transak.com/guides/how-to-create-partner-access-token, …/api/public/refresh-access-token,
 * …/integration/web/website-redirection, …/api/public/create-widget-url,
 * …/guides/how-to-decrypt-webhook-payload, …/guides/track-order-status.
 * - Partner access token: POST <API host>/partners/api/v2/refresh-token, header `api-secret`, JSON
 *   {"apiKey"} → {"data": {"accessToken", "expiresAt" (unix seconds)}}; valid 7 days. A new one
 *   invalidates the previous: the token lives in the shared token store, minted by one replica at
 *   a time (AdapterContext.tokens), so replicas never log each other out.
 * - Session: POST <gateway host>/api/v2/auth/session, header `access-token`, JSON {"widgetParams"}
 *   → {"data": {"widgetUrl"}}, single use, valid 5 minutes. Backend only; partner IPs whitelisted.
 * - Webhook: JSON {"data": "<JWT>"}, HS256 keyed by the partner access token; its claims'
 *   `webhookData` is the order (`id`, `partnerOrderId`, `status`; `walletAddress`, `network` and
 *   `cryptoCurrency` its destination).
 * - Hosts: API api-stg.transak.com / api.transak.com (production host inferred from staging's name,
 *   not stated on a page read); gateway api-gateway-stg.transak.com / api-gateway.transak.com;
 *   widget global-stg.transak.com / global.transak.com. Each API host is a setting (a fake, a proxy).
 *
 * Choices where the docs are open:
 * - widgetParams: apiKey, referrerDomain (the payment host, from the receipt URL), walletAddress,
 *   network polygon, cryptoCurrencyCode USDC, fiatAmount, fiatCurrency, partnerOrderId (our
 *   payment id), redirectURL (the receipt page), disableWalletAddressForm true, paymentMethod
 *   credit_debit_card, productsAvailed BUY, email. `cryptoCurrencyCode`, `paymentMethod` and
 *   `email` are names the pages read do not confirm ([3p] integrations use them).
 * - fiatAmount as a JSON number written from the decimal string as is (JSON.parse of "149.99"),
 *   the type of Transak's examples; no arithmetic is done on it.
 * - Neither call is retried by the HTTP client: Transak documents no idempotency for sessions,
 *   and a repeated refresh would only mint another token. A session refused with 401 (the token
 *   was revoked, or refreshed outside this gateway) drops the stored token and is tried once more
 *   with a fresh one, within the same checkout deadline.
 * - The webhook is verified with the current token, then the previous one (a refresh between
 *   Transak signing and our receiving). No freshness check: the JWT carries no documented time
 *   (`webhookUntimed`: each order and status is recorded once, and only forward).
 * - FAILED (e.g. a card decline), CANCELLED, EXPIRED and REFUNDED (a refund) are `failed` with a reason;
 *   COMPLETED ("crypto sent") is `paid`; every other documented status is `pending`.
 * - Quote: Get Price (transak-quote.ts, docs.transak.com/api/public/get-price) on the API host with
 *   the partner API key alone.
 * - Fees on top of a fixed USDC amount (issue 32, CheckoutOrder.usdc): widgetParams `cryptoAmount`
 *   instead of fiatAmount; fiatCurrency stays, so the customer pays in the order's currency. A JSON
 *   number written from the decimal string, as fiatAmount. NOT CONFIRMED for a purchase: the page
 *   docs.transak.com/customization/query-parameters was read only to its first rows. Copies of
 *   Transak's earlier table [3p] give `cryptoAmount` as a SELL parameter (the crypto sold, not
 *   editable) and `defaultCryptoAmount` as the BUY one (editable; skipped without cryptoCurrencyCode,
 *   or when fiatCurrency comes with fiatAmount or defaultFiatAmount). No fiatAmount,
 *   defaultFiatAmount or defaultCryptoAmount is sent with it, so that skip rule is not met; whether
 *   the BUY widget honours cryptoAmount, and locks it, must be seen on staging before going live (an
 *   order more than the tolerance short of the fixed USDC is judged underpaid). Get Price is asked for a fiat amount only
 *   here, so a fees-on-top row of Transak is an estimate from its fees.
 */

const settings = Type.Object({
  API_KEY: Type.String({ minLength: 8, description: 'partner API key (from the Transak dashboard; staging and production differ)' }),
  API_SECRET: secretSetting({ minLength: 8 }, 'partner API secret: sent as api-secret to mint the partner access token'),
  API_URL: apiUrlSetting('refresh-token host; default https://api.transak.com (live) or https://api-stg.transak.com (test)'),
  GATEWAY_URL: apiUrlSetting('session host; default https://api-gateway.transak.com (live) or https://api-gateway-stg.transak.com (test)'),
});

export const TRANSAK_API_HOSTS: Readonly<Record<ProviderMode, { api: string; gateway: string }>> = {
  live: { api: 'https://api.transak.com', gateway: 'https://api-gateway.transak.com' },
  test: { api: 'https://api-stg.transak.com', gateway: 'https://api-gateway-stg.transak.com' },
};
/** The widget URL of a session is good for 5 minutes and once. */
export const TRANSAK_SESSION_LIFETIME_MS = 5 * 60_000;
/**
 * The name of the partner access token in the shared token store: one per mode and API key, so two
 * deployments, modes or keys sharing a Redis prefix never use (or refresh away) each other's token.
 * The key is named by the first 16 hex digits of its SHA-256: the Redis key never shows the API key.
 */
export function transakTokenName(mode: ProviderMode, apiKey: string): string {
  return `partner-access-token:${mode}:${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
}

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://global.transak.com', test: 'https://global-stg.transak.com' },
  docs: 'https://docs.transak.com/integration/web/website-redirection',
  id: 'transak',
  displayName: 'Transak',
  currency: 'any',
  minimum: '15',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. This page gives the formula (a percentage by
  // payment method, currency pair and country, a minimum and a fixed fee) but no figure; searched
  // "Transak fees card" in documentation and pages.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://support.transak.com/en/articles/7845942-how-does-transak-calculate-prices-and-fees' },
  methods: cardOnly('https://docs.transak.com/integration/web/website-redirection'),
  // Transak documents crypto "within seconds" once a payment settles, with no usual time for a card.
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("Transak's partner FAQ refers to its coverage page and map; no list was read"),
  // Light KYC (name, phone, birth date, address; no document) for purchases of 10 to 200 USD.
  lightChecksUpTo: { amount: '200', currency: 'USD', source: 'https://docs.transak.com/guides/transak-different-kyc-levels' },
  fixedUsdc: { parameter: 'cryptoAmount', source: 'https://docs.transak.com/customization/query-parameters' },
  flow: 'session',
  // The refresh-token call (when no token is stored) and the session call.
  checkoutDeadlineMs: 12_000,
  webhook: 'HS256 JWT in the body, keyed by the partner access token',
  webhookUntimed: true,
  reportsDestination: true,
  delivers: 'native',
  settings,
};

export const transak = defineProvider({
  descriptor,
  create(values, context) {
    const apiUrl = apiUrlOf(values.API_URL, TRANSAK_API_HOSTS[context.mode].api);
    const gatewayUrl = apiUrlOf(values.GATEWAY_URL, TRANSAK_API_HOSTS[context.mode].gateway);
    const mint = (signal: AbortSignal) => refreshAccessToken(context, apiUrl, values, signal);
    const tokenName = transakTokenName(context.mode, values.API_KEY);
    const openSession = async (order: CheckoutOrder, signal: AbortSignal): Promise<string> => {
      const token = await context.tokens.current(tokenName, mint, { signal });
      const response = await context.http.request({
        method: 'POST',
        url: `${gatewayUrl}/api/v2/auth/session`,
        headers: { 'access-token': token, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ widgetParams: transakWidgetParams(order, values.API_KEY) }),
        signal,
        retryable: false,
      });
      if (response.statusCode === 401) {
        await context.tokens.discard(tokenName, token);
        throw new TokenRefusedError();
      }
      const data = sessionAnswer('Transak', 'session', response).data;
      const widgetUrl = checkoutUrlIn(isObject(data) ? data.widgetUrl : undefined, false);
      if (!widgetUrl) throw malformedAnswer('Transak', 'session', 'data.widgetUrl is not an https URL');
      return widgetUrl;
    };
    return providerAdapter(descriptor, context, {
      quote: (order, { signal }) => transakPrice(context.http, { apiUrl, apiKey: values.API_KEY }, order, signal),
      async createCheckout(order, { signal }) {
        let url: string;
        try {
          url = await openSession(order, signal);
        } catch (error) {
          // A revoked token: once more with a fresh one.
          if (!(error instanceof TokenRefusedError) || signal.aborted) throw error;
          url = await openSession(order, signal);
        }
        return { kind: 'redirect', url, expiresAt: context.now() + TRANSAK_SESSION_LIFETIME_MS, singleUse: true };
      },
      async verifyWebhook(rawBody) {
        const jwt = webhookJwt(rawBody);
        const keys = await context.tokens.known(tokenName);
        for (const key of keys) {
          const claims = await verifiedClaims(jwt, key);
          if (claims) return { ...transakWebhookEvent(claims), acknowledgement: jsonAcknowledgement({ received: true }) };
        }
        throw new ProviderWebhookError(
          keys.length === 0
            ? 'no partner access token is stored yet to verify Transak webhooks with'
            : 'the JWT is not signed with the current or the previous partner access token',
        );
      },
    });
  },
});

/** The session call refused the stored partner access token: it is dropped, and the next call mints one. */
class TokenRefusedError extends ProviderCheckoutError {
  constructor() {
    super('Transak refused the partner access token (HTTP 401)', 'unavailable', 'http_4xx');
    this.name = 'TokenRefusedError';
  }
}

/** The widget of one checkout: card, the order's fiat amount (or, fees on top, its USDC amount), USDC on Polygon to the wallet, locked. */
export function transakWidgetParams(order: CheckoutOrder, apiKey: string): Record<string, unknown> {
  return {
    apiKey,
    referrerDomain: new URL(order.returnUrl).host,
    walletAddress: order.walletAddress,
    network: 'polygon',
    cryptoCurrencyCode: 'USDC',
    ...(order.usdc === undefined
      ? { fiatAmount: JSON.parse(order.amount) as number }
      : { cryptoAmount: JSON.parse(formatUsdc(order.usdc)) as number }),
    fiatCurrency: order.currency,
    partnerOrderId: order.paymentId,
    redirectURL: order.returnUrl,
    disableWalletAddressForm: true,
    paymentMethod: 'credit_debit_card',
    productsAvailed: 'BUY',
    email: order.email,
  };
}

async function refreshAccessToken(
  context: AdapterContext,
  apiUrl: string,
  values: { API_KEY: string; API_SECRET: string },
  signal: AbortSignal,
): Promise<ProviderToken> {
  const response = await context.http.request({
    method: 'POST',
    call: 'token',
    url: `${apiUrl}/partners/api/v2/refresh-token`,
    headers: { 'api-secret': values.API_SECRET, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ apiKey: values.API_KEY }),
    signal,
    retryable: false,
  });
  const data = sessionAnswer('Transak', 'refresh-token', response).data;
  const accessToken = isObject(data) ? data.accessToken : undefined;
  const expiresAt = isObject(data) ? data.expiresAt : undefined;
  if (typeof accessToken !== 'string' || accessToken.length < 16) throw malformedAnswer('Transak', 'refresh-token', 'no data.accessToken');
  if (typeof expiresAt !== 'number' || !Number.isInteger(expiresAt) || expiresAt * 1000 <= context.now()) {
    throw malformedAnswer('Transak', 'refresh-token', 'data.expiresAt is not a future unix time in seconds');
  }
  return { value: accessToken, expiresAt: expiresAt * 1000 };
}

function webhookJwt(rawBody: Buffer): string {
  const body = webhookJson(rawBody, 'Transak webhook body');
  const data = isObject(body) ? body.data : undefined;
  if (typeof data !== 'string' || data.split('.').length !== 3) throw new ProviderWebhookError('Transak webhook body has no JWT in data');
  return data;
}

async function verifiedClaims(jwt: string, key: string): Promise<Record<string, unknown> | undefined> {
  try {
    const { payload } = await jwtVerify(jwt, new TextEncoder().encode(key), { algorithms: ['HS256'] });
    return payload;
  } catch {
    return undefined;
  }
}
