import { Type } from '@sinclair/typebox';
import stringify from 'fast-json-stable-stringify';
import { defineProvider, ProviderWebhookError } from '../../provider-contract';
import type { AdapterContext, CheckoutOrder, AdapterDescriptor, ProviderMode } from '../../provider-contract';
import { isObject, lookupAnswer } from '../../support/session-call';
import { hmacSha512, safeEqual, singleHeader } from '../../support/signing';
import { textAcknowledgement } from '../../support/webhook-acknowledgement';
import { urlCheckoutAdapter } from '../../support/url-checkout-adapter';
import { urlWithQuery } from '../../support/checkout-url';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { onrampMoneyWebhookEvent } from './onramp-money-webhook';
import { ASSUMED_TIME_TO_USDC, countriesNotFound } from '../../support/choice-facts';

/**
 * UPI (India) through Onramp.money's hosted mode: a plain URL, nothing signed.
 * Docs (docs.onramp.money, GitBook; read through the copy of its pages in GitHub
 * PabloMarzol/nebulaX_exchange, docs/onRamp_money_docs/):
 * - Hosted mode, https://docs.onramp.money/onramp/onramp-widget-integration/hosted-mode —
 *   `https://onramp.money/main/buy/?appId=…` with walletAddress, coinCode, network, fiatAmount,
 *   fiatType (1 = INR), paymentMethod (1 = "Instant transfer (e.g. UPI)", 2 = bank transfer
 *   IMPS/FAST), merchantRecognitionId (ours, "would reflect via update from webhook") and
 *   redirectUrl (Onramp appends orderId and status). With these the customer lands on the payment
 *   confirmation page.
 * - Payment methods, …/supported-assets-and-fiat/payment-methods: for fiatType 1, UPI is
 *   paymentMethod 1.
 * - Sandbox, …/sandbox-mode: the same host with the official test appId 2; only USDT on
 *   `matic20-test` (a Polygon testnet) exists there, and no funds may be sent.
 * - Webhooks, …/webhook-updates: headers `x-onramp-payload` and `x-onramp-signature`, the
 *   signature being hex HMAC-SHA512(API secret, the x-onramp-payload value); Onramp wants an answer
 *   within 5 seconds and sends webhooks only for completed orders (a webhook URL is set once,
 *   during onboarding or with setWebhookUrl).
 *
 * Choices where the docs are open:
 * - coinCode `usdc`, network `matic20` (the hosted-mode page lists usdc on bep20 and matic20),
 *   confirmed at boot in live mode against Onramp's public config (…/offramp-widget-integration/
 *   get-all-coin-details-v2: GET <API>/onramp/api/v2/sell/public/allConfig, no credential): `usdc`
 *   must list the network whose chainSymbol is `matic20`, or the boot stops; so does an answer that
 *   cannot be had (a checkout that may not deliver is not offered). allConfig names no contract:
 *   which USDC Onramp sends on Polygon is not documented, native 0x3c49…3359 is assumed.
 * - Test mode sends the sandbox pair (`usdt`, `matic20-test`), the only one the sandbox has: a test
 *   checkout exercises the flow, not the token the gateway watches.
 * - No e-mail (hosted mode documents only phoneNumber, which the gateway does not have) and no
 *   amount lock (none documented for buy).
 * - The webhook's signed value: the docs show the header as "SOME_VALUE" and verify it without
 *   decoding it. It is read here as the base64 of the webhook's JSON data, the form
 *   X-ONRAMP-PAYLOAD takes when Onramp's own API is called, and the body must carry the same data
 *   (compared key-order-insensitively); otherwise the body would not be covered by the signature.
 *   If Onramp signs another form, every webhook is refused and the chain watcher alone moves the
 *   payment: check one real webhook before relying on them.
 * - No freshness check: the signed data has no timestamp that the docs let a client rely on
 *   (updatedAt is "for internal purposes"), and Onramp re-sends unanswered webhooks. A replay can
 *   only restate a status Onramp did send.
 * - Acknowledged with 200 "ok" (the docs' example answers 200 with a short text).
 * - No quote(): searched docs.onramp.money for a quote or price API: none in the pages read; its
 *   rows show the estimate.
 */

const settings = Type.Object({
  APP_ID: Type.String({
    pattern: '^[0-9]{1,12}$',
    description: "Onramp.money appId issued at onboarding (2 is Onramp's official sandbox appId)",
  }),
  API_SECRET: secretSetting({ pattern: '^\\S{8,256}$' }, 'Onramp.money API secret, the HMAC-SHA512 key of x-onramp-signature on webhooks'),
  API_URL: apiUrlSetting('API host whose public allConfig confirms usdc on matic20 at boot; default https://api.onramp.money'),
});

export const ONRAMP_API_URL = 'https://api.onramp.money';
const BOOT_CHECK_TIMEOUT_MS = 10_000;

export const ONRAMP_PAYLOAD_HEADER = 'x-onramp-payload';
export const ONRAMP_SIGNATURE_HEADER = 'x-onramp-signature';
/** Onramp's fiatType of the Indian rupee, and its paymentMethod of instant transfer (UPI). */
export const ONRAMP_FIAT_TYPE_INR = '1';
export const ONRAMP_PAYMENT_METHOD_UPI = '1';
const ASSET: Readonly<Record<ProviderMode, { coinCode: string; network: string }>> = {
  live: { coinCode: 'usdc', network: 'matic20' },
  test: { coinCode: 'usdt', network: 'matic20-test' },
};

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://onramp.money', test: 'https://onramp.money' },
  docs: 'https://docs.onramp.money/onramp/onramp-widget-integration/hosted-mode',
  id: 'upi',
  displayName: 'UPI (via Onramp.money)',
  currency: 'INR',
  minimum: '100',
  minimumCurrency: 'INR',
  // Not published by the provider: assumed range. Searched "Onramp.money fees UPI": no figure. UPI
  // is a bank rail, which may cost far less than a card, so the floor is 0 and the ceiling the
  // assumed card one.
  fees: { minBps: 0, maxBps: 500, source: 'https://docs.onramp.money/onramp/onramp-widget-integration/hosted-mode' },
  // UPI: an instant payment from the customer's bank account, the nearest of the methods a row words.
  methods: {
    offered: [{ method: 'bank_transfer', currencies: ['INR'] }],
    source: 'https://docs.onramp.money/onramp/onramp-widget-integration/hosted-mode',
  },
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound('no page of Onramp.money stating where UPI purchases are served was read'),
  flow: 'url',
  webhook: 'HMAC-SHA512, x-onramp-signature over x-onramp-payload',
  delivers: 'native',
  settings,
};

export const upi = defineProvider({
  descriptor,
  async create(values, context) {
    if (context.mode === 'live') await confirmUsdcOnPolygon(context, apiUrlOf(values.API_URL, ONRAMP_API_URL));
    return urlCheckoutAdapter(
      descriptor,
      context,
      (order, host) => onrampMoneyUpiUrl(host, values.APP_ID, order, context.mode),
      async (rawBody, headers) => {
        const payload = singleHeader(headers, ONRAMP_PAYLOAD_HEADER) ?? '';
        const signature = singleHeader(headers, ONRAMP_SIGNATURE_HEADER) ?? '';
        if (payload === '' || !/^[0-9a-fA-F]{128}$/.test(signature))
          throw new ProviderWebhookError(`missing or malformed ${ONRAMP_PAYLOAD_HEADER} / ${ONRAMP_SIGNATURE_HEADER}`);
        const expected = hmacSha512(values.API_SECRET, Buffer.from(payload, 'utf8'), 'hex');
        if (!safeEqual(signature.toLowerCase(), expected))
          throw new ProviderWebhookError(`${ONRAMP_SIGNATURE_HEADER} does not match ${ONRAMP_PAYLOAD_HEADER}`);
        const data = signedData(payload, rawBody);
        return { ...onrampMoneyWebhookEvent(data), acknowledgement: textAcknowledgement('ok') };
      },
    );
  },
});

/**
 * The live asset, confirmed in Onramp's public allConfig: the coin `usdc` lists the network whose
 * chainSymbol is `matic20`. Throws (the boot stops, naming why) when it does not, or when the
 * config cannot be had.
 */
export async function confirmUsdcOnPolygon(context: Pick<AdapterContext, 'http'>, apiUrl: string): Promise<void> {
  const { coinCode, network } = ASSET.live;
  const refusal = (why: string) =>
    new Error(`Onramp.money's allConfig ${why}: ${coinCode} on ${network} is not confirmed, so UPI is not offered`);
  let answer: unknown;
  try {
    const response = await context.http.request({
      method: 'GET',
      url: `${apiUrl}/onramp/api/v2/sell/public/allConfig`,
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(BOOT_CHECK_TIMEOUT_MS),
      retryable: true,
    });
    answer = lookupAnswer('Onramp.money', 'allConfig', response);
  } catch (error) {
    throw refusal(`could not be read at boot (${(error as Error).message.slice(0, 120)})`);
  }
  const data = isObject(answer) && answer.status === 1 && isObject(answer.data) ? answer.data : undefined;
  if (!data || !isObject(data.allCoinConfig) || !isObject(data.networkConfig)) throw refusal('has no coin and network config');
  const networkIds = Object.entries(data.networkConfig)
    .filter(([, config]) => isObject(config) && config.chainSymbol === network)
    .map(([id]) => Number(id));
  const coin = data.allCoinConfig[coinCode];
  const coinNetworks = isObject(coin) && Array.isArray(coin.networks) ? coin.networks : [];
  if (networkIds.length === 0) throw refusal(`lists no network ${network}`);
  if (!coinNetworks.some((id) => networkIds.includes(id as number))) throw refusal(`does not list ${coinCode} on ${network}`);
}

export function onrampMoneyUpiUrl(host: string, appId: string, order: CheckoutOrder, mode: ProviderMode): string {
  if (order.currency !== 'INR') throw new Error(`UPI takes INR only, not ${order.currency}`);
  return urlWithQuery(new URL('/main/buy/', host), {
    appId,
    walletAddress: order.walletAddress,
    coinCode: ASSET[mode].coinCode,
    network: ASSET[mode].network,
    fiatAmount: order.amount,
    fiatType: ONRAMP_FIAT_TYPE_INR,
    paymentMethod: ONRAMP_PAYMENT_METHOD_UPI,
    merchantRecognitionId: order.paymentId,
    redirectUrl: order.returnUrl,
  }).toString();
}

/** The webhook data the signature covers: the decoded payload, which the body must repeat. */
function signedData(payload: string, rawBody: Buffer): Record<string, unknown> {
  const signed = jsonObject(Buffer.from(payload, 'base64').toString('utf8'));
  const body = jsonObject(rawBody.toString('utf8'));
  if (!signed || !body) throw new ProviderWebhookError('Onramp.money webhook payload or body is not a JSON object');
  if (stringify(signed) !== stringify(body))
    throw new ProviderWebhookError(`Onramp.money webhook body differs from the signed ${ONRAMP_PAYLOAD_HEADER}`);
  return signed;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
