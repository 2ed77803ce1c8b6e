import { parseFiatAmount } from '@gateway/domain';
import { Type } from '@sinclair/typebox';
import { defineProvider, ProviderWebhookError, type CheckoutOrder, type AdapterDescriptor } from '../../provider-contract';
import { hmacSha256, refuseStale, safeEqual, singleHeader } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { urlWithQuery } from '../../support/checkout-url';
import { secretSetting } from '../../support/secret-setting';
import { revolutWebhookEvent } from './revolut-webhook';
import { ASSUMED_TIME_TO_USDC } from '../../support/choice-facts';

/**
 * Revolut Ramp: a plain redirect URL with our parameters, nothing signed.
 * - Redirect URL: https://developer.revolut.com/docs/guides/crypto-ramp/get-started/initiate-transaction
 *   — `https://ramp.revolut.com/?<parameters>` (test environment ramp.revolut.codes) with amount (fiat
 *   minor units: amount=1250&fiatCurrency=EUR is €12.50), fiatCurrency, cryptoCurrency,
 *   walletAddress, partnerId; the customer may be kept from changing them. The full set as Revolut
 *   itself writes it is the `ramp_redirect_url` example of GET /buy in the Crypto Ramp API 2.0
 *   (revolut-engineering/revolut-openapi yaml/crypto-ramp-2.0.yaml): externalOrderId (UUID or
 *   ULID), partnerRedirectUrl, disableFiatAmount, disableCryptoCurrency, disableWalletAddress.
 * - Webhooks: https://developer.revolut.com/docs/guides/crypto-ramp/tutorials/work-with-webhooks/verify-the-payload-signature
 *   — `Revolut-Request-Timestamp` (Unix ms) and `Revolut-Signature: v1=<hex HMAC-SHA256(signing
 *   secret, "v1." + timestamp + "." + raw body)>`, several comma-separated while a secret is being
 *   rotated (as Revolut's other APIs document); refuse timestamps more than 5 minutes from now (the
 *   documented tolerance). Webhooks are registered per partner with POST /webhooks, not per order.
 *
 * Choices where the docs are open:
 * - The direct URL rather than GET /buy (which returns the same URL): /buy requires `region`, the
 *   customer's country of residence, which the gateway does not know; the direct URL lets Revolut
 *   ask for it. The price: the direct URL documents no payment-method parameter, so card is not
 *   preselected, and no e-mail parameter, so none is passed.
 * - cryptoCurrency `USDC-POLYGON`: Revolut lists "USDC on Polygon" among its tokens and names each
 *   currency-blockchain pair by an id from GET /config (examples: ETH, USDT-ETH, USDT-OPTIMISM);
 *   the id for USDC on Polygon is inferred from that pattern. Check it in GET /config (and that its
 *   smartContractAddress is 0x3c49…3359) and on ramp.revolut.codes before going live.
 * - Amount, token and wallet are locked (disable… = true): the wallet is ours and the order's
 *   amount is what the merchant asked for.
 * - externalOrderId is our payment id (a UUID, as Revolut asks); webhooks echo it as order_id.
 * - No quote(): Revolut documents Retrieve an order quote (GET
 *   ramp-partners.revolut.com/partners/api/2.0/quote,
 *   developer.revolut.com/docs/crypto-ramp/retrieve-an-order-quote), which takes a partner API key
 *   this adapter has no setting for and a required `region` (the customer's country); its rows show
 *   the estimate.
 */

const settings = Type.Object({
  PARTNER_ID: Type.String({
    pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    description: 'partner id Revolut gives at integration (the partnerId of the redirect URL)',
  }),
  // Revolut's signing secrets are wsk_ and 32 more characters: a shorter one is a placeholder.
  WEBHOOK_SECRET: secretSetting(
    { pattern: '^wsk_[A-Za-z0-9]{8,128}$' },
    'signing_secret of our Crypto Ramp webhook (wsk_…), verifies Revolut-Signature; at least 32 characters in production',
  ),
});

export const REVOLUT_SIGNATURE_HEADER = 'revolut-signature';
export const REVOLUT_TIMESTAMP_HEADER = 'revolut-request-timestamp';
export const REVOLUT_WEBHOOK_TOLERANCE_SECONDS = 300;
export const REVOLUT_USDC_POLYGON = 'USDC-POLYGON';

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://ramp.revolut.com', test: 'https://ramp.revolut.codes' },
  docs: 'https://developer.revolut.com/docs/guides/crypto-ramp/get-started/initiate-transaction',
  id: 'revolut',
  displayName: 'Revolut',
  currency: 'any',
  minimum: '10',
  minimumCurrency: 'USD',
  // Revolut's crypto exchange fee: 1.5 % (Premium, Metal) or 2.5 % (Standard, Plus), 0.5 % more
  // past the plan's exchange limit. Revolut Ramp buys from the customer's Revolut account; no fee
  // page of Ramp's own was found (searched "Revolut ramp fees").
  fees: {
    minBps: 150,
    maxBps: 300,
    source:
      'https://www.revolut.com/en-EE/help/wealth/cryptocurrencies/understanding-revolut-cryptocurrency/how-does-revolut-calculate-the-cryptocurrency-rates',
  },
  // A card (Mastercard, Visa; not prepaid), Apple Pay, Google Pay, or the customer's Revolut account
  // (a balance, which no row words).
  methods: {
    offered: [{ method: 'card' }, { method: 'apple_pay' }, { method: 'google_pay' }],
    source: 'https://developer.revolut.com/docs/guides/crypto-ramp/introduction-to-revolut-ramp/coverage-and-other-details/payment-options',
  },
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  // Residents of these; the guide's older copy of the page lacks Cyprus, Italy and Spain.
  countries: {
    only: [
      'GB',
      'AT',
      'CH',
      'CZ',
      'CY',
      'DK',
      'EE',
      'FI',
      'DE',
      'GR',
      'HU',
      'IE',
      'IS',
      'IT',
      'LV',
      'LI',
      'LT',
      'LU',
      'MT',
      'NO',
      'PL',
      'PT',
      'RO',
      'ES',
      'SK',
      'SI',
      'SE',
    ],
    source:
      'https://developer.revolut.com/docs/guides/crypto-ramp/introduction-to-revolut-ramp/coverage-and-other-details/currencies-and-regions',
  },

  flow: 'url',
  webhook: 'HMAC-SHA256, Revolut-Signature',
  delivers: 'native',
  settings,
};

export const revolut = defineProvider({
  descriptor,
  create: (values, context) =>
    urlCheckoutAdapter(
      descriptor,
      context,
      (order, host) => revolutRampUrl(host, values.PARTNER_ID, order),
      async (rawBody, headers) => {
        const timestamp = singleHeader(headers, REVOLUT_TIMESTAMP_HEADER) ?? '';
        const header = singleHeader(headers, REVOLUT_SIGNATURE_HEADER) ?? '';
        if (!/^\d{1,16}$/.test(timestamp)) throw new ProviderWebhookError(`missing or malformed ${REVOLUT_TIMESTAMP_HEADER}`);
        const signatures = header.split(',').map((part) => part.trim());
        if (!signatures.every((signature) => /^v1=[0-9a-f]{64}$/.test(signature))) {
          throw new ProviderWebhookError(`missing or malformed ${REVOLUT_SIGNATURE_HEADER}`);
        }
        const expected = `v1=${hmacSha256(values.WEBHOOK_SECRET, Buffer.concat([Buffer.from(`v1.${timestamp}.`), rawBody]), 'hex')}`;
        // Every signature is compared, so the time taken does not say which one matched.
        const matches = signatures.map((signature) => safeEqual(signature, expected));
        if (!matches.includes(true)) throw new ProviderWebhookError(`${REVOLUT_SIGNATURE_HEADER} does not match the body`);
        refuseStale(REVOLUT_TIMESTAMP_HEADER, timestamp, 'milliseconds', context.now(), REVOLUT_WEBHOOK_TOLERANCE_SECONDS);
        return { ...revolutWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
      },
    ),
});

export function revolutRampUrl(host: string, partnerId: string, order: CheckoutOrder): string {
  return urlWithQuery(host, {
    partnerId,
    fiatCurrency: order.currency,
    // Minor units: every currency the gateway takes has two decimals.
    amount: parseFiatAmount(order.amount).minorUnits.toString(),
    cryptoCurrency: REVOLUT_USDC_POLYGON,
    walletAddress: order.walletAddress,
    externalOrderId: order.paymentId,
    disableFiatAmount: 'true',
    disableCryptoCurrency: 'true',
    disableWalletAddress: 'true',
    partnerRedirectUrl: order.returnUrl,
  }).toString();
}
