import { Type } from '@sinclair/typebox';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { defineProvider, ProviderWebhookError, type CheckoutOrder, type AdapterDescriptor } from '../../provider-contract';
import { hmacSha256, refuseStale, safeEqual, singleHeader } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { urlWithQuery } from '../../support/checkout-url';
import { secretSetting } from '../../support/secret-setting';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { alchemyPayWebhookEvent, alchemyPayWebhookSignContent, parseAlchemyPayWebhook } from './alchemypay-webhook';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { ALCHEMYPAY_API_HOSTS, alchemyPayEstimate } from './alchemypay-quote';

/**
 * Alchemy Pay: a signed on-ramp page URL.
 * - URL signing: https://alchemypay.readme.io/docs/ramp-signature-description — base64
 *   HMAC-SHA256(app secret, timestamp + "GET" + "/index/rampPageBuy?" + k=v&… with every sent
 *   parameter, appId and timestamp included, sorted by name, empty values dropped). The values are
 *   signed as they are, unencoded (the docs' Java sample); the link carries them URL-encoded, and
 *   `sign` URL-encoded too.
 * - Parameters: https://alchemypay.readme.io/docs/on-ramp-custom-parameters (appId, timestamp,
 *   merchantOrderNo, fiat, fiatAmount, crypto, network, address, email, showTable, redirectUrl,
 *   callbackUrl). Passing fiat and fiatAmount locks them; crypto, network and address likewise.
 * - Webhooks: https://alchemypay.readme.io/docs/webhook and
 *   https://alchemypay.readme.io/docs/webhook-signature — POST to the order's callbackUrl, header
 *   `timestamp` (13-digit Unix ms), body field `newSignature` = base64 HMAC-SHA256(app secret,
 *   timestamp + "POST" + the callbackUrl's path + the body's fields, empty ones, `signature` and
 *   `newSignature` removed, sorted by name, as compact JSON). The page's worked example shows that
 *   serialisation: {"address":"***","amount":"15.00000000",…}.
 * - Test mode: https://ramptest.alchemypay.org (Page Integration → Domains) with the sandbox appId
 *   and secret; the keys do not say their mode.
 *
 * Choices where the docs are open:
 * - `crypto=USDC`, `network=MATIC`: the Polygon code in Alchemy Pay's examples (the callback
 *   sample at https://alchemypay.readme.io/docs/callback shows "crypto":"USDC","network":"MATIC";
 *   the network list is https://alchemypay.readme.io/docs/network-code). Which USDC it sends is not
 *   documented: check the crypto list of the merchant account names 0x3c49…3359 before going live.
 * - Our payment id (a UUID, 36 characters; the limit is 48) is `merchantOrderNo`, echoed in the
 *   webhook; context.webhookUrl is `callbackUrl`, so its path is the one the webhook signs.
 * - No card preselection: page mode documents no payment-method parameter.
 * - A webhook whose timestamp is more than 5 minutes from now is refused: the window Alchemy Pay
 *   itself applies to signed API requests (https://alchemypay.readme.io/docs/api-sign). Webhooks
 *   are sent once unless retries are arranged with Alchemy Pay.
 * - The acknowledgement is HTTP 200 with Alchemy Pay's own success envelope
 *   ({"success":true,"returnCode":"0000",…}): retries stop on "an HTTP 200 response with a success
 *   message", and that envelope is the success answer its docs show for partner endpoints.
 * - Quote: the Estimate Price Query (alchemypay-quote.ts, POST /open/api/v4/merchant/order/quoted/result
 *   on openapi.alchemypay.org, signed as API Sign says with the same app secret): `fiatAmount` is what
 *   the customer pays, fees included, `cryptoQuantity` the USDC the wallet receives. Not confirmed: the
 *   payment method it prices (the checkout preselects none) and that the live answer is the object the
 *   current page shows (earlier versions showed a list).
 */

const settings = Type.Object({
  APP_ID: Type.String({ pattern: '^[A-Za-z0-9]{8,64}$', description: 'appId issued by Alchemy Pay (merchant dashboard), sent as appId' }),
  APP_SECRET: secretSetting(
    { pattern: '^\\S{8,256}$' },
    'appSecret issued with the appId: signs the page URL (sign), the Estimate Price Query (sign) and verifies webhooks (newSignature)',
  ),
  API_URL: apiUrlSetting(
    'API host of the Estimate Price Query; default https://openapi.alchemypay.org, https://openapi-test.alchemypay.org in test mode',
  ),
});

export const ALCHEMYPAY_TIMESTAMP_HEADER = 'timestamp';
export const ALCHEMYPAY_WEBHOOK_TOLERANCE_SECONDS = 300;
/** The request path the on-ramp page signature names (off-ramp would be /index/rampPageSell). */
export const ALCHEMYPAY_BUY_PAGE_PATH = '/index/rampPageBuy';

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://ramp.alchemypay.org', test: 'https://ramptest.alchemypay.org' },
  docs: 'https://alchemypay.readme.io/docs/ramp-signature-description',
  id: 'alchemypay',
  displayName: 'Alchemy Pay',
  currency: 'any',
  minimum: '5',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Alchemy Pay fees": its docs name a
  // `rampFee` but no rate; the callback sample on this page (12.89 on 311.00 EUR by card, 4.1 %)
  // lies inside the range.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://alchemypay.readme.io/docs/callback' },
  methods: cardOnly('https://alchemypay.readme.io/docs/on-ramp-fiat-currency-and-payment-method'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("no list of Alchemy Pay's served countries was read"),
  flow: 'signed-url',
  webhook: 'HMAC-SHA256, newSignature body field over timestamp header + callback path + sorted body',
  delivers: 'native',
  settings,
};

export const alchemypay = defineProvider({
  descriptor,
  create(values, context) {
    // The webhook signs the path of the callbackUrl we give, without the domain.
    const callbackPath = new URL(context.webhookUrl).pathname;
    const apiHost = apiUrlOf(values.API_URL, ALCHEMYPAY_API_HOSTS[context.mode]);
    const adapter = urlCheckoutAdapter(
      descriptor,
      context,
      (order, host) => signedAlchemyPayUrl(host, values.APP_ID, values.APP_SECRET, order, context.webhookUrl, context.now()),
      async (rawBody, headers) => {
        const timestamp = singleHeader(headers, ALCHEMYPAY_TIMESTAMP_HEADER) ?? '';
        if (!/^\d{13}$/.test(timestamp)) throw new ProviderWebhookError(`missing or malformed ${ALCHEMYPAY_TIMESTAMP_HEADER} header`);
        const body = parseAlchemyPayWebhook(rawBody);
        const given = typeof body.newSignature === 'string' ? body.newSignature : '';
        if (given === '') throw new ProviderWebhookError('Alchemy Pay webhook has no newSignature');
        const expected = hmacSha256(values.APP_SECRET, alchemyPayWebhookSignContent(timestamp, callbackPath, body), 'base64');
        if (!safeEqual(given, expected)) throw new ProviderWebhookError('newSignature does not match the webhook');
        refuseStale(ALCHEMYPAY_TIMESTAMP_HEADER, timestamp, 'milliseconds', context.now(), ALCHEMYPAY_WEBHOOK_TOLERANCE_SECONDS);
        return {
          ...alchemyPayWebhookEvent(body),
          acknowledgement: jsonAcknowledgement({ success: true, returnCode: '0000', returnMsg: 'SUCCESS', data: null }),
        };
      },
    );
    return {
      ...adapter,
      quote: (order, { signal }) =>
        alchemyPayEstimate(
          context.http,
          { apiHost, appId: values.APP_ID, appSecret: values.APP_SECRET, nowMs: context.now() },
          order,
          signal,
        ),
    };
  },
});

/** `timestamp + "GET" + "/index/rampPageBuy?" + k=v&…`: the parameters sorted by name, empty ones dropped, values unencoded. */
export function alchemyPayPageSignContent(timestamp: string, params: Readonly<Record<string, string>>): string {
  const query = Object.keys(params)
    .filter((name) => params[name] !== '')
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join('&');
  return `${timestamp}GET${ALCHEMYPAY_BUY_PAGE_PATH}?${query}`;
}

export function signedAlchemyPayUrl(
  host: string,
  appId: string,
  appSecret: string,
  order: CheckoutOrder,
  callbackUrl: string,
  nowMs: number,
): string {
  const timestamp = String(nowMs);
  const params: Record<string, string> = {
    appId,
    timestamp,
    merchantOrderNo: order.paymentId,
    crypto: 'USDC',
    network: 'MATIC',
    fiat: order.currency,
    fiatAmount: order.amount,
    address: order.walletAddress,
    email: order.email,
    showTable: 'buy',
    redirectUrl: order.returnUrl,
    callbackUrl,
  };
  const url = urlWithQuery(host, params);
  url.searchParams.append('sign', hmacSha256(appSecret, alchemyPayPageSignContent(timestamp, params), 'base64'));
  return url.toString();
}
