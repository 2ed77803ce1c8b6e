import { Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider, type CheckoutOrder, type AdapterDescriptor } from '../../provider-contract';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { urlWithQuery } from '../../support/checkout-url';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * Particle Network's on-ramp: a plain, unsigned link to ramp.particle.network, an aggregator page
 * that routes the customer to one of several ramp vendors.
 *
 * - Docs: https://developers.particle.network/wallet/on-ramp ("SDK Integration"; the same table in
 *   Particle-Network/particle-network-docs developers/wallet-service/on-ramp.md): network (one of
 *   Solana, Ethereum, Binance Smart Chain, Polygon, …), fiatCoin, cryptoCoin, fiatAmt, cryptAmt,
 *   fixFiatCoin, fixCryptoCoin, fixFiatAmt, walletAddress, theme (light, dark), language (en,
 *   zh-CN, zh-TW, ja, ko). Particle's SDK (@particle-network/auth getBuyUrl) appends exactly these
 *   as query parameters to https://ramp.particle.network/.
 * - Not documented: an order reference, a return URL, an e-mail, a payment-method preselection, a
 *   partner key, webhooks. The link carries none of them; the payment is known by its one-off
 *   wallet (the chain watcher sees the USDC arrive), and the customer returns through the
 *   gateway's receipt page only if the customer opens it again (Particle sends no one back).
 *   Particle takes no credentials: PROVIDER_PARTICLE_MODE=live is the operator's opt-in.
 * - Test mode: Particle documents no sandbox for the ramp, so hosts.test is the live host. (Its SDK
 *   switches to ramp-staging.particle.network / ramp-debug.particle.network for Particle's own
 *   environments, which are not offered to partners as a test mode.)
 *
 * Choices where the docs are open: `network=Polygon` (the name in the docs' list) and
 * `cryptoCoin=USDC` (the plain symbol, as integrators pass `ETH`, `BNB`; check it against
 * ramp.particle.network/supported_cryptocurrencies.html); fiatCoin is the ISO code in capitals, as
 * Particle's examples pass `USD`; the fiat amount is the decimal string as given; all three fix…
 * flags are set so the customer cannot change the currency, the asset or the amount. Which USDC
 * arrives is the routed vendor's choice, which Particle does not document: the card ramps deliver
 * native USDC (0x3c49…3359) on Polygon today, and that is the token the chain watcher follows.
 * - No quote(): a plain link with no credential of ours, so there is no server-side call to make;
 *   its rows show the estimate.
 */

const settings = Type.Object({
  LANGUAGE: Type.Optional(
    Type.Union([Type.Literal('en'), Type.Literal('zh-CN'), Type.Literal('zh-TW'), Type.Literal('ja'), Type.Literal('ko')], {
      description: "language of Particle's ramp page (en, zh-CN, zh-TW, ja or ko; default en)",
    }),
  ),
});

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://ramp.particle.network', test: 'https://ramp.particle.network' },
  docs: 'https://developers.particle.network/wallet/on-ramp',
  id: 'particle',
  displayName: 'Particle',
  currency: 'any',
  minimum: '30',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Particle's on-ramp routes to partner providers,
  // each with fees of its own; no figure found.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://developers.particle.network/wallet/on-ramp' },
  methods: cardOnly('https://developers.particle.network/wallet/on-ramp'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound('Particle forwards to on-ramps of its own choosing; no list found'),
  flow: 'url',
  webhook: null,
  delivers: 'native',
  settings,
};

export const particle = defineProvider({
  descriptor,
  create: (values, context) =>
    urlCheckoutAdapter(descriptor, context, (order, host) => particleRampUrl(host, values.LANGUAGE ?? 'en', order)),
});

/** Particle's names for the Polygon network and for USDC. */
export const PARTICLE_NETWORK = 'Polygon';
export const PARTICLE_CRYPTO_COIN = 'USDC';

export function particleRampUrl(host: string, language: string, order: CheckoutOrder): string {
  return urlWithQuery(new URL('/', host), {
    network: PARTICLE_NETWORK,
    cryptoCoin: PARTICLE_CRYPTO_COIN,
    fixCryptoCoin: 'true',
    fiatCoin: order.currency,
    fixFiatCoin: 'true',
    fiatAmt: order.amount,
    fixFiatAmt: 'true',
    walletAddress: order.walletAddress,
    language,
  }).toString();
}
