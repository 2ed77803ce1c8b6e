import { Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider, type CheckoutOrder, type AdapterDescriptor } from '../../provider-contract';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { urlWithQuery } from '../../support/checkout-url';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * UTORG: the "direct" link, a plain unsigned URL carrying the merchant SID and the wallet in its path.
 *
 * - Docs: https://docs.utorg.pro/ — merchant API (order/init with X-AUTH-SID / X-AUTH-NONCE),
 *   environments (sandbox merchant account and widget on https://app-stage.utorg.pro, production on
 *   https://app.utorg.pro), postbacks with the order status, success/fail redirect URLs.
 * - Link: `https://app.utorg.pro/direct/{SID}/{address}/?currency=…` — the form UTORG's partners
 *   link to (Tangem's Android wallet, NEAR wallet, zkSync portal use it, sandbox SID on
 *   app-stage.utorg.pro). The query parameters are the names of UTORG's order/init request
 *   (`currency`, `paymentCurrency`, `paymentAmount`, `externalId`, `email`, `successUrl`,
 *   `failUrl`), which integrators also pass on the direct link; the copy of docs.utorg.pro that
 *   could be read does not list the direct link's parameters, so confirm them with UTORG support.
 * - Webhooks (postbacks): the docs ask merchants to handle postbacks with the order status but the
 *   readable pages document no signature on them. Nothing is accepted (webhook: null), and no
 *   `postbackUrl` is sent: an unverifiable postback must not reach the gateway.
 *
 * Choices where the docs are open: `USDCPOL` is the currency code, following UTORG's own naming
 * in POST /api/merchant/v1/settings/currency (`USDTPOL`, `DAIPOL`: symbol + `POL` for chain
 * POLYGON; bridged tokens carry an `E`, e.g. `USDCEAVA`), so it names native USDC — check it
 * against that list for your SID before going live. The fiat is the ISO code as UTORG lists it
 * (`EUR`, `USD`). UTORG documents no amount lock and no payment-method preselection for the link.
 * `successUrl` and `failUrl` are both the receipt page, which shows either outcome.
 * - No quote(): searched docs.utorg.pro for a rate or quote API: none in the pages read; its rows
 *   show the estimate.
 */

const settings = Type.Object({
  SID: Type.String({
    pattern: '^[A-Za-z0-9._-]{2,64}$',
    description: 'merchant SID issued by UTORG support (the X-AUTH-SID of the merchant API; the first path segment of the direct link)',
  }),
});

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://app.utorg.pro', test: 'https://app-stage.utorg.pro' },
  docs: 'https://docs.utorg.pro/',
  id: 'utorg',
  displayName: 'UTORG',
  currency: 'any',
  minimum: '50',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "UTORG fees": no figure found.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://docs.utorg.pro/' },
  methods: cardOnly('https://docs.utorg.pro/'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound('UTORG serves 175 countries and names its restricted ones only at checkout'),
  // "A single transaction is limited to 8,000 euros (or an equivalent in the payment currency)."
  maximum: { amount: '8000', currency: 'EUR', source: 'https://utorg.pro/faq/' },
  flow: 'url',
  webhook: null,
  delivers: 'native',
  settings,
};

export const utorg = defineProvider({
  descriptor,
  create: (values, context) => urlCheckoutAdapter(descriptor, context, (order, host) => utorgDirectUrl(host, values.SID, order)),
});

/** UTORG's code for USDC on chain POLYGON. */
export const UTORG_CURRENCY = 'USDCPOL';

export function utorgDirectUrl(host: string, sid: string, order: CheckoutOrder): string {
  return urlWithQuery(new URL(`/direct/${encodeURIComponent(sid)}/${encodeURIComponent(order.walletAddress)}/`, host), {
    currency: UTORG_CURRENCY,
    paymentCurrency: order.currency,
    paymentAmount: order.amount,
    externalId: order.paymentId,
    email: order.email,
    successUrl: order.returnUrl,
    failUrl: order.returnUrl,
  }).toString();
}
