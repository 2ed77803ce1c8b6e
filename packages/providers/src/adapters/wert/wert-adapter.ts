import { type Static, Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider } from '../../provider-contract';
import type {
  AdapterContext,
  CheckoutOrder,
  ProviderAdapter,
  ProviderDescriptor,
  AdapterDescriptor,
  ProviderMode,
  ProviderStatusQuery,
  ProviderWebhookEvent,
} from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { isObject, lookupAnswer, malformedAnswer, sessionAnswer } from '../../support/session-call';
import { decimalAmount, jsonWithAmount } from '../../support/amount-json';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { urlWithQuery } from '../../support/checkout-url';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { providerAdapter } from '../../support/provider-adapter';
import { wertOrderEvent, wertWebhookEvent } from './wert-order';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * Wert's hosted payment page: a session created server-side, then the widget opened top-level with it.
 * Docs: https://docs.wert.io/docs/fiat-onramp (session-based integration: POST
 * /api/external/hpp/create-session, `X-Api-Key`, flow_type, commodity, network, wallet_address,
 * currency, currency_amount → `sessionId`, `requestId`), the official widget initializer
 * (github.com/wert-io/widget-initializer: the widget is `<origin>/<partner_id>/widget?…`, origin
 * https://widget.wert.io, https://sandbox.wert.io for the sandbox; `click_id`, `redirect_url`),
 * https://docs.wert.io/docs/data-api (GET /api/external/orders?search_by=<order or click id>, `X-API-KEY`)
 * and https://docs.wert.io/docs/webhooks (unsigned; HTTP 200 required on every event, or Wert
 * retries and then disables the endpoint).
 * - Session: POST <API>/api/external/hpp/create-session, JSON: flow_type `simple_full_restrict`
 *   (nothing editable by the customer), commodity `USDC`, network `polygon`, wallet_address,
 *   currency, currency_amount (a JSON number written from the decimal string, never through a float).
 * - Checkout: <widget origin>/<PARTNER_ID>/widget?session_id=…&click_id=<payment id>&redirect_url=<receipt page>.
 * - Status: the Data API searched by click_id (our payment id): the order pinned on the payment, else
 *   the newest with that click_id delivering to the payment's wallet (`address`), speaks.
 * - Webhooks are unsigned (`webhookUnsigned`): each is a hint, answered 200, on which the gateway asks `status()`.
 *
 * Choices where the docs are open, and facts not confirmed on a page read:
 * - click_id and redirect_url travel in the widget URL (the initializer's options, which it writes
 *   as query parameters), not in the session: the session's parameter table read does not list them.
 *   That Wert keeps a URL click_id next to a session_id is not confirmed; the look-up depends on it.
 * - The e-mail is not sent: the session's table read has no e-mail, and a URL parameter would put
 *   it in logs on the way.
 * - Not retried: Wert documents no idempotency key for sessions.
 * - No expiry and not single use: the docs state neither for a session.
 * - Order statuses beyond `success` (Data API example) and the widget's pending, canceled, failed:
 *   `created`, `progress`, `cancelled` are read as well, unconfirmed.
 * - Hosts: API https://partner.wert.io (test: https://partner-sandbox.wert.io), documented; the
 *   minimum (1 USD) is the specification's, not Wert's (none found on a page read).
 * - Currency: USD. The plugins' `werteur` is this adapter with EUR, on the same account (adapters/werteur).
 * - No quote(): Wert's Converter (https://docs.wert.io/docs/converter, its .md copy of 2026-01):
 *   POST https://widget.wert.io/api/v3/partners/convert (sandbox https://sandbox.wert.io: the widget
 *   hosts, not the partner API), `X-Partner-ID`, JSON `from`, `network` (the base asset's), `to`,
 *   `amount` (a number, in the base asset), `partner_data` for smart contracts only; one version adds
 *   `payment_methods` (e.g. ["cards"]) for fees per method. 1 request per 250 ms per IP, else 429;
 *   only USD in the sandbox. Every copy of that page readable here (docs and pages corpora, several
 *   versions, llm-full.md) ends for us at the sample requests, before its Response section; no
 *   wert-io repository holds it. Integrators' code, supporting evidence only, sends from USD, network
 *   polygon, to the commodity, and reads `body` of `{"status": "ok", "body": {…}}`: ticker,
 *   fee_percent, currency_amount, fee_amount, commodity_amount, purchase_amount, miner_fee,
 *   currency_miner_fee (numbers); the widget initializer's rate-update event names the same eight,
 *   as strings, without meanings. Missing: the answer's documented fields and types, whether a fiat
 *   `from` is meant (the samples convert crypto to fiat), and whether commodity_amount is net of
 *   Wert's fee and the network fee and currency_amount the card total. Its rows show the estimate.
 */

export const WERT_API_HOSTS: Readonly<Record<ProviderMode, string>> = {
  live: 'https://partner.wert.io',
  test: 'https://partner-sandbox.wert.io',
};

export const wertSettings = Type.Object({
  PARTNER_ID: Type.String({ pattern: '^[0-9A-Za-z]{8,40}$', description: 'partner id, the widget URL path segment' }),
  API_KEY: secretSetting({ pattern: '^[A-Za-z0-9-]{16,200}$' }, 'partner API key, sent as X-Api-Key'),
  API_URL: apiUrlSetting('partner API host; default https://partner.wert.io (test: https://partner-sandbox.wert.io)'),
});

const descriptor: AdapterDescriptor<typeof wertSettings> = {
  hosts: { live: 'https://widget.wert.io', test: 'https://sandbox.wert.io' },
  docs: 'https://docs.wert.io/docs/fiat-onramp',
  id: 'wert',
  displayName: 'Wert',
  currency: 'USD',
  minimum: '1',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Wert fees card" in documentation and
  // code: no figure found.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.wert.io/docs/fiat-onramp' },
  // Methods: Wert's hosted page as read (docs.wert.io/docs/fiat-onramp) documents card payments.
  methods: cardOnly('https://docs.wert.io/docs/fiat-onramp'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("Wert's FAQ refers to its website for supported countries and US states; no list was read"),
  // Non-document KYC ("LKYC") allows purchases up to 1,000 EUR over a profile's lifetime.
  lightChecksUpTo: { amount: '1000', currency: 'EUR', source: 'https://docs.wert.io/docs/general-faq' },
  flow: 'session',
  // One session call.
  checkoutDeadlineMs: 8_000,
  webhook: 'none: unsigned (a hint; the order is looked up)',
  webhookUnsigned: true,
  reportsDestination: true,
  delivers: 'native',
  settings: wertSettings,
};

export const wert = defineProvider({
  descriptor,
  create: (values, context) => createWertAdapter(descriptor, values, context),
});

/** Wert's adapter under a descriptor: Wert's own, or one of a provider on the Wert account (werteur). */
export function createWertAdapter(
  described: ProviderDescriptor<typeof wertSettings>,
  values: Static<typeof wertSettings>,
  context: AdapterContext,
): ProviderAdapter {
  const apiUrl = apiUrlOf(values.API_URL, WERT_API_HOSTS[context.mode]);
  const widget = `${described.hosts[context.mode]}/${encodeURIComponent(values.PARTNER_ID)}/widget`;
  return providerAdapter(described, context, {
    async createCheckout(order, { signal }) {
      const response = await context.http.request({
        method: 'POST',
        url: `${apiUrl}/api/external/hpp/create-session`,
        headers: { 'x-api-key': values.API_KEY, 'content-type': 'application/json', accept: 'application/json' },
        body: wertSessionBody(order),
        signal,
        retryable: false,
      });
      const session = sessionAnswer('Wert', 'session', response);
      const sessionId = typeof session.sessionId === 'string' ? session.sessionId : '';
      if (!/^[A-Za-z0-9_-]{8,128}$/.test(sessionId)) throw malformedAnswer('Wert', 'session', 'no sessionId');
      const url = urlWithQuery(widget, { session_id: sessionId, click_id: order.paymentId, redirect_url: order.returnUrl });
      return { kind: 'redirect', url: url.toString() };
    },
    async verifyWebhook(rawBody) {
      return { ...wertWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
    },
    status: (query, { signal }) => wertOrderStatus(context.http, apiUrl, values.API_KEY, query, signal),
  });
}

/** The session of one order: USDC on Polygon to the wallet for the order's amount, nothing left to change. */
export function wertSessionBody(order: CheckoutOrder): string {
  const fields = {
    flow_type: 'simple_full_restrict',
    commodity: 'USDC',
    network: 'polygon',
    wallet_address: order.walletAddress,
    currency: order.currency,
  };
  // Wert takes the amount as a JSON number.
  return jsonWithAmount(fields, 'currency_amount', decimalAmount('Wert session', order.amount), 'last');
}

/** The Data API searched by our payment id (the click_id): null while Wert has no order with it. */
export async function wertOrderStatus(
  http: ProviderHttpClient,
  apiUrl: string,
  apiKey: string,
  query: ProviderStatusQuery,
  signal: AbortSignal,
): Promise<ProviderWebhookEvent | null> {
  const url = new URL(`${apiUrl}/api/external/orders`);
  url.searchParams.set('search_by', query.paymentId);
  const response = await http.request({
    method: 'GET',
    url: url.toString(),
    headers: { 'x-api-key': apiKey, accept: 'application/json' },
    signal,
    retryable: true,
  });
  const body = lookupAnswer('Wert', 'order', response);
  if (!isObject(body) || body.success !== true || !Array.isArray(body.data)) {
    throw new Error('Wert answered the order look-up without success and a data array');
  }
  const orders = body.data.filter((item): item is Record<string, unknown> => isObject(item) && item.click_id === query.paymentId);
  const newestFirst = orders.sort((a, b) => String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')));
  const chosen = ourOrder(newestFirst, query);
  return (chosen && wertOrderEvent(chosen)) ?? null;
}

/**
 * The click_id is a URL parameter anyone can put on an order of their own: the order followed is the
 * one already pinned (none while Wert does not list it), else the newest delivering to the payment's
 * wallet. None such: the newest speaks, and the gateway refuses it as another wallet's.
 */
function ourOrder(newestFirst: readonly Record<string, unknown>[], query: ProviderStatusQuery): Record<string, unknown> | undefined {
  if (query.providerReference) return newestFirst.find((order) => order.order_id === query.providerReference);
  const wallet = query.walletAddress?.toLowerCase();
  return newestFirst.find((order) => typeof order.address === 'string' && order.address.toLowerCase() === wallet) ?? newestFirst[0];
}
