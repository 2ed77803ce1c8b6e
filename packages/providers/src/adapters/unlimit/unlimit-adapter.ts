import { Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider, type CheckoutOrder, type AdapterDescriptor } from '../../provider-contract';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { urlWithQuery } from '../../support/checkout-url';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * Unlimit Crypto (the former GateFi on-ramp): the hosted-mode URL, plain and unsigned.
 *
 * - Docs: https://docs.gatefi.com/docs/gatefi-docs/7p34n1uhrzlg8-hosted-mode-integration (hosted
 *   mode) and the configuration table of Unlimit's official SDK (npm @gatefi/js-sdk 0.24.0,
 *   README "SDK Configuration Options"): merchantId, walletAddress/wallet, walletLock, email,
 *   externalId ("custom ID of the order"), fiatAmountLock, fiatCurrencyLock, cryptoCurrencyLock,
 *   payment ("payment method code"), successUrl, declineUrl, cancelUrl, redirectUrl.
 * - Hosts: the SDK opens https://onramp.gatefi.com/ and, with `isSandbox`, https://onramp-sandbox.gatefi.com/.
 * - Hosted-mode query names are those Unlimit's own examples put on the URL: `wallet`,
 *   `cryptoCurrency`, `fiatCurrency`, `fiatAmount` and their `…Lock` flags (the SDK passes the same
 *   settings by postMessage instead, as walletAddress/defaultFiat/defaultCrypto).
 * - Webhooks: Unlimit's sample code verifies an `x-signature` header as hex HMAC-SHA256 of the
 *   body with a webhook secret, but no copy of Unlimit's documentation that could be read defines
 *   the webhook body, its statuses or that scheme. Nothing is accepted (webhook: null); the chain
 *   watcher is the source of truth either way.
 *
 * Choices where the docs are open: `USDC-POLYGON` is the crypto code (Unlimit names assets
 * `SYMBOL-NETWORK`, e.g. `USDT-BEP20`, and lists them in GET /onramp/v1/configuration — check the
 * code and that it names native USDC 0x3c49…3359 for your merchant before going live);
 * `payment=BANKCARD` preselects card (the code Unlimit's API examples use for cards); every lock is
 * set so the customer cannot change asset, wallet, fiat or amount; the receipt page is the
 * success, decline, cancel and "Back to Shop" URL, since it shows every outcome.
 * - No quote(): searched the GateFi/Unlimit docs for a quote API: none in the pages read (the hosted
 *   mode takes no credential of ours); its rows show the estimate.
 */

const settings = Type.Object({
  MERCHANT_ID: Type.String({
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    description: 'Unlimit Crypto merchant ID (merchantId, a UUID from the Unlimit Crypto dashboard; sandbox and production IDs differ)',
  }),
});

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://onramp.gatefi.com', test: 'https://onramp-sandbox.gatefi.com' },
  docs: 'https://docs.gatefi.com/docs/gatefi-docs/7p34n1uhrzlg8-hosted-mode-integration',
  id: 'unlimit',
  displayName: 'Unlimit',
  currency: 'any',
  minimum: '10',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Unlimit crypto fees" (GateFi): no figure
  // found.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.gatefi.com/docs/gatefi-docs/7p34n1uhrzlg8-hosted-mode-integration' },
  methods: cardOnly('https://docs.gatefi.com/docs/gatefi-docs/7p34n1uhrzlg8-hosted-mode-integration'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("no list of Unlimit Crypto's served countries was found"),
  flow: 'url',
  webhook: null,
  delivers: 'native',
  settings,
};

export const unlimit = defineProvider({
  descriptor,
  create: (values, context) => urlCheckoutAdapter(descriptor, context, (order, host) => unlimitHostedUrl(host, values.MERCHANT_ID, order)),
});

/** Unlimit's code for USDC on Polygon, and its code for card payments. */
export const UNLIMIT_CRYPTO_CURRENCY = 'USDC-POLYGON';
export const UNLIMIT_CARD_PAYMENT = 'BANKCARD';

export function unlimitHostedUrl(host: string, merchantId: string, order: CheckoutOrder): string {
  return urlWithQuery(new URL('/', host), {
    merchantId,
    cryptoCurrency: UNLIMIT_CRYPTO_CURRENCY,
    cryptoCurrencyLock: 'true',
    fiatCurrency: order.currency,
    fiatCurrencyLock: 'true',
    fiatAmount: order.amount,
    fiatAmountLock: 'true',
    wallet: order.walletAddress,
    walletLock: 'true',
    payment: UNLIMIT_CARD_PAYMENT,
    email: order.email,
    externalId: order.paymentId,
    successUrl: order.returnUrl,
    declineUrl: order.returnUrl,
    cancelUrl: order.returnUrl,
    redirectUrl: order.returnUrl,
  }).toString();
}
