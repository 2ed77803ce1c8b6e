import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import stringify from 'fast-json-stable-stringify';
import { defineProvider, ProviderWebhookError } from '../../provider-contract';
import type { AdapterContext, CheckoutOrder, ProviderAdapter, AdapterDescriptor, ProviderMode } from '../../provider-contract';
import { singleHeader } from '../../support/signing';
import { textAcknowledgement } from '../../support/webhook-acknowledgement';
import { webhookJson } from '../../support/webhook-json';
import { urlWithQuery } from '../../support/checkout-url';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { rampWebhookEvent } from './rampnetwork-webhook';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { RAMP_API_HOSTS, rampQuote } from './rampnetwork-quote';

/**
 * Ramp Network: a plain widget URL with our parameters, nothing signed by us.
 * - Parameters: RampNetwork/ramp-instant-sdk src/types.ts (IHostConfig) and the SDK's
 *   initWidgetIframeUrl, which appends each config value as a query parameter; the same names
 *   in https://docs.rampnetwork.com/configuration: hostApiKey, hostAppName, swapAsset,
 *   userAddress, fiatCurrency + fiatValue (used together), userEmailAddress,
 *   paymentMethodType (SDK enum: CARD), enabledFlows, finalUrl, webhookStatusUrl.
 * - Hosts: https://app.rampnetwork.com (the SDK's baseWidgetUrl); the demo (test) widget
 *   https://app.demo.rampnetwork.com, as Ramp's Android SDK documents for its `url` option
 *   (RampNetwork/ramp-sdk-android rampsdk/.../facade/Config.kt and its demo app).
 * - Webhooks: https://docs.rampnetwork.com/webhooks — `X-Body-Signature`: base64 of a DER
 *   ECDSA secp256k1/SHA-256 signature over the JSON body re-serialised with
 *   fast-json-stable-stringify (keys sorted, no whitespace), verified with Ramp's published
 *   public key: the production key in live mode, the staging (demo) key in test mode. The
 *   signature covers the parsed body, not its bytes, so we verify what the body says, which is
 *   what is read afterwards. No timestamp is signed, so a replay cannot be refused by age; a
 *   replayed purchase status can only repeat what Ramp said (the chain decides money). Ramp
 *   retries four times, 3 minutes apart, until it gets a 2xx; it answers its own example "OK".
 *
 * Choices where the docs are open: `MATIC_USDC` is the swap asset (Ramp names assets
 * CHAIN_SYMBOL and its chain for Polygon is MATIC, e.g. the SDK's asset type `MATIC_ERC20`;
 * `POLYGON_USDC` appears in no Ramp material). It is taken to be native USDC 0x3c49…3359,
 * bridged USDC.e being `MATIC_USDCE` — known from integrators' code, not from a Ramp page:
 * check the asset's address in Ramp's host-api assets endpoint before going live. USD only (the
 * gateway's terms for Ramp); minimum 4 USD. The amount is suggested, not locked (Ramp documents
 * no lock). Ramp takes no order reference, so our payment id travels only in `finalUrl` (the
 * receipt page).
 * - Quote: POST <API>/api/host-api/v3/onramp/quote/all for the card (rampnetwork-quote.ts says
 *   what of it is on Ramp's pages and what is from integrators and Ramp's purchase object).
 */

/** Ramp's webhook keys as published on https://docs.rampnetwork.com/webhooks (SPKI, secp256k1). */
export const RAMP_WEBHOOK_PUBLIC_KEYS: Readonly<Record<ProviderMode, string>> = {
  live: [
    '-----BEGIN PUBLIC KEY-----',
    'MFYwEAYHKoZIzj0CAQYFK4EEAAoDQgAElvxpYOhgdAmI+7oL4mABRAfM5CwLkCbZ',
    'm64ERVKAisSulWFC3oRZom/PeyE2iXPX1ekp9UD1r+51c9TiuIHU4w==',
    '-----END PUBLIC KEY-----',
  ].join('\n'),
  test: [
    '-----BEGIN PUBLIC KEY-----',
    'MFYwEAYHKoZIzj0CAQYFK4EEAAoDQgAEevN2PMEeIaaMkS4VIfXOqsLebj19kVeu',
    'wWl0AnkIA6DJU0r3ixkXVhJTltycJtkDoEAYtPHfARyTofB5ZNw9xA==',
    '-----END PUBLIC KEY-----',
  ].join('\n'),
};

export const RAMP_SIGNATURE_HEADER = 'x-body-signature';
export const RAMP_SWAP_ASSET = 'MATIC_USDC';
/** A DER ECDSA signature over secp256k1 is at most 72 bytes: 96 base64 characters. */
const SIGNATURE = /^[A-Za-z0-9+/]{8,100}={0,2}$/;

const settings = Type.Object({
  HOST_API_KEY: Type.String({
    pattern: '^[A-Za-z0-9_-]{8,256}$',
    description: 'host API key Ramp issues on onboarding (hostApiKey); the demo environment has its own',
  }),
  API_URL: apiUrlSetting('API host of the quote; default https://api.ramp.network (test: https://api.demo.ramp.network)'),
  HOST_APP_NAME: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "name Ramp's widget shows for the integrating app (hostAppName)" }),
  ),
});
export type RampSettings = Static<typeof settings>;

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://app.rampnetwork.com', test: 'https://app.demo.rampnetwork.com' },
  docs: 'https://docs.rampnetwork.com/webhooks',
  id: 'rampnetwork',
  displayName: 'Ramp Network',
  currency: 'USD',
  minimum: '4',
  minimumCurrency: 'USD',
  // Ramp's pricing policy: a card in USD, EUR or GBP up to 3.90 % (up to 5.45 % in other currencies;
  // this adapter takes USD only). A ceiling only, so the floor is 0; its minimum fee (up to 2.49 EUR)
  // is out of scope.
  fees: { minBps: 0, maxBps: 390, source: 'https://rampnetwork.com/pricing-policy' },
  methods: cardOnly('https://docs.rampnetwork.com/configuration'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("no list of Ramp Network's served countries was found"),
  flow: 'url',
  webhook: 'ECDSA secp256k1/SHA-256, X-Body-Signature',
  reportsDestination: true,
  delivers: 'native',
  settings,
};

export const rampnetwork = defineProvider({
  descriptor,
  create: (values, context) => createRampAdapter(values, context, RAMP_WEBHOOK_PUBLIC_KEYS),
});

/**
 * The adapter, with the webhook keys it trusts. The module above always passes Ramp's published
 * keys; tests pass a key pair of their own, since Ramp's private keys sign nothing for us.
 */
export function createRampAdapter(
  values: RampSettings,
  context: AdapterContext,
  webhookPublicKeys: Readonly<Record<ProviderMode, string>>,
): ProviderAdapter {
  const publicKey = createPublicKey(webhookPublicKeys[context.mode]);
  const quoteRequest = {
    apiUrl: apiUrlOf(values.API_URL, RAMP_API_HOSTS[context.mode]),
    hostApiKey: values.HOST_API_KEY,
    swapAsset: RAMP_SWAP_ASSET,
  };
  const adapter = urlCheckoutAdapter(
    descriptor,
    context,
    (order, host) => rampCheckoutUrl(host, values, order, context.webhookUrl),
    async (rawBody, headers) => {
      const signature = singleHeader(headers, RAMP_SIGNATURE_HEADER) ?? '';
      if (!SIGNATURE.test(signature)) throw new ProviderWebhookError(`missing or malformed ${RAMP_SIGNATURE_HEADER}`);
      const body = webhookJson(rawBody, 'Ramp webhook body');
      if (!verifiesRampSignature(stringify(body), signature, publicKey)) {
        throw new ProviderWebhookError(`${RAMP_SIGNATURE_HEADER} does not match the body`);
      }
      return { ...rampWebhookEvent(body), acknowledgement: textAcknowledgement('OK') };
    },
  );
  return { ...adapter, quote: (order, { signal }) => rampQuote(context.http, quoteRequest, order, signal) };
}

export function rampCheckoutUrl(host: string, values: RampSettings, order: CheckoutOrder, webhookUrl: string): string {
  return urlWithQuery(host, {
    hostApiKey: values.HOST_API_KEY,
    hostAppName: values.HOST_APP_NAME,
    enabledFlows: 'ONRAMP',
    swapAsset: RAMP_SWAP_ASSET,
    userAddress: order.walletAddress,
    fiatCurrency: order.currency,
    fiatValue: order.amount,
    userEmailAddress: order.email,
    paymentMethodType: 'CARD',
    finalUrl: order.returnUrl,
    webhookStatusUrl: webhookUrl,
  }).toString();
}

/** True only for a DER ECDSA signature by `publicKey` over the message's SHA-256. */
function verifiesRampSignature(message: string, signatureBase64: string, publicKey: KeyObject): boolean {
  try {
    return verify('sha256', Buffer.from(message, 'utf8'), { key: publicKey, dsaEncoding: 'der' }, Buffer.from(signatureBase64, 'base64'));
  } catch {
    // A signature that is not DER at all: not Ramp's.
    return false;
  }
}
