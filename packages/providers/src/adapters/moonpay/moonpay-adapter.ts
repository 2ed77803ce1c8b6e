import { formatUsdc, type DocumentedMinutes, type ProviderTerms } from '@gateway/domain';
import { Type, type Static } from '@sinclair/typebox';
import { defineProvider, ProviderWebhookError } from '../../provider-contract';
import type {
  AdapterContext,
  CheckoutOrder,
  DocumentedCardFees,
  ProviderAdapter,
  ProviderDescriptor,
  AdapterDescriptor,
  ChoiceFacts,
  ProviderMode,
} from '../../provider-contract';
import { hmacSha256, refuseStale, safeEqual, singleHeader } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { urlWithQuery } from '../../support/checkout-url';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { MOONPAY_API_HOST, moonpayBuyQuote } from './moonpay-quote';
import { moonpayTransactionStatus } from './moonpay-status';
import { moonpayWebhookEvent } from './moonpay-webhook';
import { countriesNotFound } from '../../support/choice-facts';

/**
 * MoonPay: a signed widget URL.
 * - URL signing: https://dev.moonpay.com/docs/ramps-sdk-url-signing — base64 HMAC-SHA256, keyed
 *   with the secret key, over the URL's search string including its leading `?`, values encoded
 *   as URLSearchParams encodes them; `signature` appended last, itself URL-encoded.
 * - Parameters: https://dev.moonpay.com/docs/ramps-sdk-buy-params (apiKey, currencyCode,
 *   walletAddress, baseCurrencyCode, baseCurrencyAmount or quoteCurrencyAmount, lockAmount, email,
 *   externalTransactionId, redirectURL, paymentMethod).
 * - Webhooks: https://dev.moonpay.com/reference/reference-webhooks-signature — header
 *   `Moonpay-Signature-V2: t=<unix s>,s=<hex HMAC-SHA256(webhook key, t + "." + body)>`.
 * - Test mode: `pk_test_`/`sk_test_` keys, host buy-sandbox.moonpay.com (as MoonPay's SDK picks it).
 * - Quote: https://dev.moonpay.com/api-reference/widget/getbuyquote (moonpay-quote.ts), with the
 *   same `paymentMethod` as the widget URL.
 * - Status: https://dev.moonpay.com/v1.0/reference/getbuytransactionbyexternalid (moonpay-status.ts).
 *
 * - Fees on top of a fixed USDC amount (issue 32, CheckoutOrder.usdc): `quoteCurrencyAmount`
 *   replaces baseCurrencyAmount; the customer then pays MoonPay's fees on top. The parameters page
 *   above (its copy dev.moonpay.com/widget/on-ramp/customization/parameters.md) was read only to its
 *   first rows; the descriptions of these rows are those MoonPay ships in its Web SDK
 *   (@moonpay/moonpay-js 0.7.6, dist/index.d.ts, AdvancedWidgetQueryParams): quoteCurrencyAmount is
 *   the crypto the customer wants to buy, and wins over baseCurrencyAmount when both are passed (we
 *   pass one); lockAmount locks baseCurrencyAmount only and is skipped without it. So this URL does
 *   NOT lock the USDC amount: the customer can change it on MoonPay's page, and an order more than the
 *   tolerance short of the fixed USDC is judged underpaid (expectUsdc, quote basis). lockAmount stays in the URL, unused by
 *   MoonPay here. quoteCurrencyAmount is signed with the rest (the HMAC covers the whole query).
 *   The buy quote takes quoteCurrencyAmount too (moonpay-quote.ts), so a fees-on-top row of MoonPay
 *   is quoted (quoteUsdc). Only the descriptor claiming `fixedUsdc` gets it: Interac e-Transfer and
 *   PayPal on MoonPay's account keep the fees inside, and have no quoteUsdc.
 *
 * Choices where the docs are open: `usdc_polygon` is the currency code (MoonPay lists the codes
 * in its dashboard and GET /v3/currencies; verify it names 0x3c49…3359 before going live); a fiat
 * amount is locked so the customer cannot change it on MoonPay's page; a webhook signed more
 * than 5 minutes from now is refused (MoonPay documents no tolerance for V2).
 */

const KEY = (prefix: string) => `^${prefix}_(live|test)_[A-Za-z0-9]{8,128}$`;

const settings = Type.Object({
  API_KEY: Type.String({ pattern: KEY('pk'), description: 'publishable key, pk_live_… or pk_test_… (Dashboard → Developers)' }),
  SECRET_KEY: secretSetting({ pattern: KEY('sk') }, 'secret key, sk_live_… or sk_test_…, signs the widget URL'),
  // MoonPay's webhook keys are wk_live_/wk_test_ and about 31 more characters: a shorter one is a placeholder.
  WEBHOOK_KEY: secretSetting(
    { pattern: '^\\S{8,256}$' },
    'webhook API key (Dashboard → Developers → Webhooks), verifies Moonpay-Signature-V2; at least 32 characters in production',
  ),
  API_URL: apiUrlSetting('API host of the buy quote and transaction look-ups; default https://api.moonpay.com'),
});

export const MOONPAY_SIGNATURE_HEADER = 'moonpay-signature-v2';
export const MOONPAY_WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * MoonPay's page of payment methods, whose fee section (formerly
 * support.moonpay.com/customers/docs/all-supported-payment-methods#what-are-the-fees-with-moonpay)
 * integrators quote; the stored copy read here ends before that section, so the figures below are
 * theirs: 1 % to 4.5 % by payment method and region, a card up to 4.5 %.
 */
const MOONPAY_FEES_PAGE = 'https://support.moonpay.com/en/articles/380823-moonpay-s-supported-payment-methods';
/** The same page lists each payment method's regions (and its speed). */
export const MOONPAY_METHODS_PAGE = MOONPAY_FEES_PAGE;

/** "Most subsequent transactions will be processed within about 20 minutes" (a first one may take hours). */
export const MOONPAY_TIME_TO_USDC: DocumentedMinutes = {
  minutes: 20,
  source:
    'https://help.moonpay.com/hc/en-gb/articles/360009343538-How-long-does-it-take-to-receive-cryptocurrency-after-making-a-card-payment',
};

/** A payment method on MoonPay with no fee figure of its own found (Interac e-Transfer, PayPal): MoonPay's whole span. */
export const MOONPAY_ANY_METHOD_FEES: DocumentedCardFees = { minBps: 100, maxBps: 450, source: MOONPAY_FEES_PAGE };

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://buy.moonpay.com', test: 'https://buy-sandbox.moonpay.com' },
  docs: 'https://dev.moonpay.com/docs/ramps-sdk-url-signing',
  id: 'moonpay',
  displayName: 'MoonPay',
  currency: 'any',
  minimum: '20',
  minimumCurrency: 'USD',
  // A card: up to 4.5 % (3.5 % in some regions), as integrators quote MOONPAY_FEES_PAGE; its minimum
  // fee (3.99) and the network fee are out of scope.
  fees: { minBps: 350, maxBps: 450, source: MOONPAY_FEES_PAGE },
  // Card (Visa, Mastercard, Maestro), Apple Pay, Google Pay everywhere; PayPal in the US, UK and EU;
  // bank transfers in EUR (SEPA), GBP (Faster Payments) and BRL (PIX).
  methods: {
    offered: [
      { method: 'card' },
      { method: 'apple_pay' },
      { method: 'google_pay' },
      { method: 'paypal' },
      { method: 'bank_transfer', currencies: ['EUR', 'GBP', 'BRL'] },
    ],
    source: MOONPAY_METHODS_PAGE,
  },
  timeToUsdc: MOONPAY_TIME_TO_USDC,
  countries: countriesNotFound(
    'MoonPay rates every country (dev.moonpay.com/docs/country-coverage) and sells no stablecoins in Canada; the copy read was cut before its end, so no list is taken from it',
  ),
  fixedUsdc: { parameter: 'quoteCurrencyAmount', source: 'https://dev.moonpay.com/docs/ramps-sdk-buy-params' },
  flow: 'signed-url',
  webhook: 'HMAC-SHA256, Moonpay-Signature-V2',
  delivers: 'native',
  settings,
};

export const moonpay = defineProvider({
  descriptor,
  modeOf: (values, requested) => moonpayKeysMode('MOONPAY', values, requested),
  create: (values, context) => createMoonpayAdapter(descriptor, values, context, 'credit_debit_card'),
});

type MoonpaySettings = Static<typeof settings>;

/** The settings of a provider on a MoonPay account (MoonPay itself, Interac e-Transfer through it). */
export const moonpaySettings = settings;

/**
 * A payment method of MoonPay's widget offered as a provider of its own (Interac e-Transfer, PayPal):
 * it runs on the operator's MoonPay account, with MoonPay's keys (`PROVIDER_<ID>_*`), and its
 * webhooks arrive at `/webhooks/moonpay` (`account`). `paymentMethod` is the widget's value for it.
 */
export function moonpayPaymentMethod(
  terms: Omit<ProviderTerms, keyof ChoiceFacts> & ChoiceFacts & Pick<ProviderDescriptor, 'fees'>,
  paymentMethod: string,
) {
  const descriptor: AdapterDescriptor<typeof settings> = {
    hosts: { live: 'https://buy.moonpay.com', test: 'https://buy-sandbox.moonpay.com' },
    docs: 'https://dev.moonpay.com/platform/guides/pay-with-widget',
    ...terms,
    flow: 'signed-url',
    webhook: 'HMAC-SHA256, Moonpay-Signature-V2 (at /webhooks/moonpay)',
    delivers: 'native',
    settings,
    account: 'moonpay',
  };
  return defineProvider({
    descriptor,
    modeOf: (values, requested) => moonpayKeysMode(terms.id.toUpperCase(), values, requested),
    create: (values, context) => createMoonpayAdapter(descriptor, values, context, paymentMethod),
  });
}

/** The mode MoonPay's keys select: pk_/sk_ both _live_ or both _test_; a contradicting MODE is refused. */
export function moonpayKeysMode(envId: string, values: MoonpaySettings, requested: ProviderMode | undefined): ProviderMode {
  const modes = new Set([values.API_KEY, values.SECRET_KEY].map((key) => (key.split('_')[1] === 'live' ? 'live' : 'test') as ProviderMode));
  if (modes.size > 1) throw new Error('MoonPay keys mix live and test (pk_ and sk_ must both be _live_ or both _test_)');
  const [mode] = [...modes] as [ProviderMode];
  if (requested !== undefined && requested !== mode) {
    throw new Error(`PROVIDER_${envId}_MODE=${requested} contradicts the ${mode} keys; MoonPay's keys select the mode, leave MODE unset`);
  }
  return mode;
}

/**
 * A checkout on MoonPay's widget with `paymentMethod` preselected (`credit_debit_card`, or
 * `interac` for Interac e-Transfer), MoonPay's webhook verification, and MoonPay's buy quote for
 * that payment method (its fees differ by method, so Interac is quoted as Interac).
 */
export function createMoonpayAdapter(
  providerDescriptor: ProviderDescriptor,
  values: MoonpaySettings,
  context: AdapterContext,
  paymentMethod: string,
): ProviderAdapter {
  const verifyWebhook: ProviderAdapter['verifyWebhook'] = async (rawBody, headers) => {
    const header = singleHeader(headers, MOONPAY_SIGNATURE_HEADER) ?? '';
    const match = /^t=(\d{1,12}),s=([0-9a-f]{64})$/.exec(header);
    if (!match) throw new ProviderWebhookError(`missing or malformed ${MOONPAY_SIGNATURE_HEADER}`);
    const [, t = '', signature = ''] = match;
    const expected = hmacSha256(values.WEBHOOK_KEY, Buffer.concat([Buffer.from(`${t}.`), rawBody]), 'hex');
    if (!safeEqual(signature, expected)) throw new ProviderWebhookError(`${MOONPAY_SIGNATURE_HEADER} does not match the body`);
    refuseStale(`${MOONPAY_SIGNATURE_HEADER} timestamp`, t, 'seconds', context.now(), MOONPAY_WEBHOOK_TOLERANCE_SECONDS);
    // MoonPay takes any 2xx.
    return { ...moonpayWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ received: true }) };
  };
  const apiHost = apiUrlOf(values.API_URL, MOONPAY_API_HOST);
  const quoteRequest = { apiHost, apiKey: values.API_KEY, paymentMethod };
  return {
    ...urlCheckoutAdapter(
      providerDescriptor,
      context,
      (order, host) => signedMoonpayUrl(host, values.API_KEY, values.SECRET_KEY, order, paymentMethod),
      verifyWebhook,
    ),
    quote: (order, { signal }) => moonpayBuyQuote(context.http, quoteRequest, order, signal),
    ...(providerDescriptor.fixedUsdc && { quoteUsdc: (order, { signal }) => moonpayBuyQuote(context.http, quoteRequest, order, signal) }),
    status: (query, { signal }) => moonpayTransactionStatus(context.http, { apiHost, apiKey: values.API_KEY }, query, signal),
  };
}

export function signedMoonpayUrl(
  host: string,
  apiKey: string,
  secretKey: string,
  order: CheckoutOrder,
  paymentMethod = 'credit_debit_card',
): string {
  const url = urlWithQuery(host, {
    apiKey,
    currencyCode: 'usdc_polygon',
    walletAddress: order.walletAddress,
    baseCurrencyCode: order.currency.toLowerCase(),
    ...(order.usdc === undefined ? { baseCurrencyAmount: order.amount } : { quoteCurrencyAmount: formatUsdc(order.usdc) }),
    lockAmount: 'true',
    email: order.email,
    externalTransactionId: order.paymentId,
    paymentMethod,
    redirectURL: order.returnUrl,
  });
  // Signed over the search string as it will be sent (with its "?"), then appended last.
  url.searchParams.append('signature', hmacSha256(secretKey, url.search, 'base64'));
  return url.toString();
}
