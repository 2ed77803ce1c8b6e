import { Type } from '@sinclair/typebox';
import type { ProviderPaymentStatus } from '@gateway/domain';
import { defineProvider, ProviderWebhookError } from '../../provider-contract';
import type { CheckoutOrder, AdapterDescriptor, ProviderStatusQuery, ProviderWebhookEvent } from '../../provider-contract';
import type { ProviderHttpClient } from '../../support/provider-http-client';
import { isObject, lookupAnswer, malformedAnswer, sessionAnswer } from '../../support/session-call';
import { paymentEvent, text } from '../../support/webhook-event';
import { urlWithQuery } from '../../support/checkout-url';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { providerAdapter } from '../../support/provider-adapter';
import { cdpBearerJwt, importCdpKey, type CdpKey } from './coinbase-key';
import { coinbaseBuyQuote, coinbaseQuotes } from './coinbase-quote';
import { ASSUMED_TIME_TO_USDC } from '../../support/choice-facts';

/**
 * Coinbase Onramp, Coinbase-hosted, with a session token.
 * Docs: docs.cdp.coinbase.com/onramp-&-offramp/session-token-authentication,
 * docs.cdp.coinbase.com/api-reference/rest-api/onramp-offramp/create-session-token,
 * docs.cdp.coinbase.com/onramp-&-offramp/onramp-apis/generating-onramp-url (URL parameters),
 * docs.cdp.coinbase.com/onramp/core-features/transaction-status (status), and coinbase-key.ts (the JWT).
 * - POST <API>/onramp/v1/token, `Authorization: Bearer <CDP JWT>`, JSON {addresses: [{address,
 *   blockchains: ["polygon"]}], assets: ["USDC"], clientIp} → {token, channel_id}. The token is
 *   single use and expires after 5 minutes; `clientIp` is the end user's IP ("do not trust
 *   X-Forwarded-For": the payment host's own reading behind its configured proxies is sent).
 * - The customer goes to https://pay.coinbase.com/buy/select-asset?sessionToken=…&defaultNetwork=polygon
 *   &defaultAsset=USDC&presetFiatAmount=…&fiatCurrency=…&defaultPaymentMethod=CARD&partnerUserRef=<payment id>
 *   &redirectUrl=<receipt page>; in test mode to https://pay-sandbox.coinbase.com, the sandbox
 *   (docs.cdp.coinbase.com/onramp-&-offramp/integration/sandbox-testing: session tokens required,
 *   guest checkout, the test card 4242 4242 4242 4242, no real purchase).
 * - presetFiatAmount holds only in USD, CAD, GBP and EUR (generating-onramp-url, as issue 35 read it): Coinbase is
 *   offered for those currencies only (descriptor.currencies). Even there the customer can change
 *   the amount in Coinbase's page: the chain decides what arrived.
 * - Status: GET <API>/onramp/v1/buy/user/<partnerUserRef>/transactions?page_size=10 (newest first), the
 *   transaction pinned on the payment, else the newest to its wallet (`wallet_address`, with
 *   `purchase_network` and `purchase_currency` the rest of its destination):
 *   ONRAMP_TRANSACTION_STATUS_SUCCESS is `paid` (Coinbase sent the crypto; its tx_hash is kept),
 *   ..._FAILED `failed`, ..._CREATED and ..._IN_PROGRESS `pending`.
 *
 * Choices where the docs are open, and facts not confirmed:
 * - No webhooks: CDP's onramp webhooks (X-Hook0-Signature) are configured per CDP project and not
 *   integrated here; the gateway polls the transaction status API (status()) and follows the chain.
 * - The JWT's `uris` names the host of API_URL: pointed at an egress proxy, the proxy must keep the
 *   Host header, or Coinbase would refuse a JWT naming the proxy.
 * - The token call is not retried (a retry mints a second token: harmless, but not documented
 *   idempotent); one deadline covers it, the order's signal.
 * - The sandbox is documented for the onramp page, not for the API: test mode uses the same API host.
 * - Which Polygon USDC Coinbase sends is not stated on a page read: `native` is claimed (the
 *   watcher follows both).
 * - Quote: the Buy Quote (coinbase-quote.ts) prices a customer's country (and a US customer's state),
 *   so it is a located quote: asked only where the payment host knows the customer's location
 *   (CUSTOMER_COUNTRY_HEADER, CUSTOMER_SUBDIVISION_HEADER); elsewhere its rows show the estimate.
 */

const settings = Type.Object({
  KEY_ID: Type.String({
    minLength: 8,
    maxLength: 200,
    description: 'CDP Secret API key id (a UUID, or organizations/…/apiKeys/… for a legacy ECDSA key)',
  }),
  KEY_SECRET: Type.String({
    minLength: 40,
    description: 'CDP Secret API key secret: base64 Ed25519 (64 bytes) or a PEM EC (P-256) private key',
  }),
  API_URL: apiUrlSetting('CDP API host; default https://api.developer.coinbase.com'),
});

export const COINBASE_API_URL = 'https://api.developer.coinbase.com';
export const COINBASE_PAY_URL = 'https://pay.coinbase.com';
/** The documented sandbox: guest checkout with the test card 4242 4242 4242 4242, no real purchase. */
export const COINBASE_SANDBOX_PAY_URL = 'https://pay-sandbox.coinbase.com';
/** Transactions of one partnerUserRef read per look-up, newest first: a stranger's under the same ref must not hide ours. */
export const COINBASE_TRANSACTIONS_READ = 10;
/** A session token is good for 5 minutes and once. */
export const COINBASE_TOKEN_LIFETIME_MS = 5 * 60_000;

export const COINBASE_TRANSACTION_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  ONRAMP_TRANSACTION_STATUS_CREATED: 'pending',
  ONRAMP_TRANSACTION_STATUS_IN_PROGRESS: 'pending',
  ONRAMP_TRANSACTION_STATUS_SUCCESS: 'paid',
  ONRAMP_TRANSACTION_STATUS_FAILED: 'failed',
};

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: COINBASE_PAY_URL, test: COINBASE_SANDBOX_PAY_URL },
  docs: 'https://docs.cdp.coinbase.com/onramp-&-offramp/session-token-authentication',
  id: 'coinbase',
  displayName: 'Coinbase',
  currency: 'any',
  // presetFiatAmount is honoured in these only: in another currency the customer would set the amount.
  currencies: ['USD', 'CAD', 'GBP', 'EUR'],
  minimum: '2',
  minimumCurrency: 'USD',
  // This page offers 0 % on USDC to apps Coinbase approves ("Unlock 0% Fees on USDC Onramp"); the
  // card fee otherwise is not published by the provider: 4 % assumed as the ceiling (integrators
  // observe about 2.5 % on a debit card). Searched "Coinbase onramp fees" in documentation and code.
  fees: { minBps: 0, maxBps: 400, source: 'https://docs.cdp.coinbase.com/onramp/coinbase-hosted-onramp/overview' },
  // Guest checkout (no Coinbase account): a debit card, or one in Apple Pay or Google Pay.
  methods: {
    offered: [{ method: 'card' }, { method: 'apple_pay' }, { method: 'google_pay' }],
    source: 'https://docs.cdp.coinbase.com/onramp/coinbase-hosted-onramp/overview',
  },
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  // Without a Coinbase account, the US, the UK and Canada (account holders: wherever Coinbase operates but Japan).
  countries: { only: ['US', 'GB', 'CA'], source: 'https://docs.cdp.coinbase.com/onramp/additional-resources/faq' },
  // Guest checkout: up to 500 USD a week.
  maximum: { amount: '500', currency: 'USD', source: 'https://docs.cdp.coinbase.com/onramp/coinbase-hosted-onramp/overview' },
  flow: 'session',
  // One session token call.
  checkoutDeadlineMs: 8_000,
  webhook: null,
  reportsDestination: true,
  delivers: 'native',
  settings,
};

export const coinbase = defineProvider({
  descriptor,
  create(values, context) {
    const apiUrl = apiUrlOf(values.API_URL, COINBASE_API_URL);
    const cdpKey: CdpKey = importCdpKey(values.KEY_SECRET);
    const bearer = async (method: string, url: string) => `Bearer ${await cdpBearerJwt(cdpKey, values.KEY_ID, method, url, context.now())}`;
    return providerAdapter(descriptor, context, {
      async createCheckout(order, { signal }) {
        const url = `${apiUrl}/onramp/v1/token`;
        const response = await context.http.request({
          method: 'POST',
          url,
          headers: { authorization: await bearer('POST', url), 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(coinbaseTokenRequest(order)),
          signal,
          retryable: false,
        });
        const answer = sessionAnswer('Coinbase', 'session token', response);
        if (typeof answer.token !== 'string' || answer.token === '') throw malformedAnswer('Coinbase', 'session token', 'no token');
        return {
          kind: 'redirect',
          url: coinbaseOnrampUrl(answer.token, order, descriptor.hosts[context.mode]).toString(),
          expiresAt: context.now() + COINBASE_TOKEN_LIFETIME_MS,
          singleUse: true,
        };
      },
      async verifyWebhook() {
        throw new ProviderWebhookError('Coinbase webhooks are not received here: the gateway asks the transaction status API');
      },
      status: async (query, { signal }) => coinbaseTransactionStatus(context.http, apiUrl, bearer, query, signal),
      locatedQuote: {
        prices: coinbaseQuotes,
        quote: async (order, { signal }) => coinbaseBuyQuote(context.http, { apiUrl, bearer }, order, signal),
      },
    });
  },
});

export function coinbaseTokenRequest(order: CheckoutOrder): Record<string, unknown> {
  return {
    addresses: [{ address: order.walletAddress, blockchains: ['polygon'] }],
    assets: ['USDC'],
    clientIp: order.customerIp,
  };
}

export function coinbaseOnrampUrl(token: string, order: CheckoutOrder, host: string): URL {
  return urlWithQuery(new URL('/buy/select-asset', host), {
    sessionToken: token,
    defaultNetwork: 'polygon',
    defaultAsset: 'USDC',
    presetFiatAmount: order.amount,
    fiatCurrency: order.currency,
    defaultPaymentMethod: 'CARD',
    partnerUserRef: order.paymentId,
    redirectUrl: order.returnUrl,
  });
}

async function coinbaseTransactionStatus(
  http: ProviderHttpClient,
  apiUrl: string,
  bearer: (method: string, url: string) => Promise<string>,
  query: ProviderStatusQuery,
  signal: AbortSignal,
): Promise<ProviderWebhookEvent | null> {
  const url = `${apiUrl}/onramp/v1/buy/user/${encodeURIComponent(query.paymentId)}/transactions`;
  const response = await http.request({
    method: 'GET',
    url: `${url}?page_size=${COINBASE_TRANSACTIONS_READ}`,
    headers: { authorization: await bearer('GET', url), accept: 'application/json' },
    signal,
    retryable: true,
  });
  if (response.statusCode === 404) return null;
  const body = lookupAnswer('Coinbase', 'transaction status', response);
  if (!isObject(body) || !Array.isArray(body.transactions)) throw new Error('Coinbase answered without a transactions array');
  const transactions = body.transactions.filter(isObject);
  const latest = ourTransaction(transactions, query);
  if (!latest || typeof latest.status !== 'string') return null;
  const status = COINBASE_TRANSACTION_STATUS[latest.status];
  // A status word the mapping does not know says nothing yet: asked again later.
  if (!status) return null;
  const { event } = paymentEvent({
    status,
    rawStatus: latest.status,
    paymentId: query.paymentId,
    providerReference: text(latest.transaction_id),
    walletAddress: text(latest.wallet_address),
    network: text(latest.purchase_network),
    asset: text(latest.purchase_currency),
    // The look-up's failure_reason is FAILURE_REASON_BUY_FAILED, _SEND_FAILED or _UNSPECIFIED (get-onramp-transactions-by-id,
    // docs.cdp.coinbase.com/api-reference/rest-api/onramp-offramp): none says why, so a failure is the decline kind `other`.
    reason: status === 'failed' ? 'Coinbase could not complete the purchase.' : undefined,
  });
  const txHash = typeof latest.tx_hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(latest.tx_hash) ? latest.tx_hash : undefined;
  return txHash ? { ...event, txHash } : event;
}

/**
 * partnerUserRef is a URL parameter anyone can put on a purchase of their own: the transaction
 * followed is the one pinned on the payment (none while Coinbase does not list it), else the newest
 * delivering to the payment's wallet. None such: the newest speaks, and the gateway refuses it as
 * another wallet's.
 */
function ourTransaction(newestFirst: readonly Record<string, unknown>[], query: ProviderStatusQuery): Record<string, unknown> | undefined {
  if (query.providerReference) return newestFirst.find((transaction) => transaction.transaction_id === query.providerReference);
  const wallet = query.walletAddress?.toLowerCase();
  return (
    newestFirst.find(
      (transaction) => typeof transaction.wallet_address === 'string' && transaction.wallet_address.toLowerCase() === wallet,
    ) ?? newestFirst[0]
  );
}
