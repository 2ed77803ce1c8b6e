import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { ASSUMED_CARD_FEES } from '../../support/assumed-card-fees';
import { Type } from '@sinclair/typebox';
import { defineProvider, POLYGON_USDC, ProviderCheckoutError, ProviderWebhookError } from '../../provider-contract';
import type { CheckoutOrder, AdapterDescriptor, ProviderWebhookEvent, WebhookHeaders } from '../../provider-contract';
import { decimalAmount, jsonWithAmount } from '../../support/amount-json';
import type { ProviderHttpClient, ProviderHttpResponse } from '../../support/provider-http-client';
import { isObject, lookupAnswer, malformedAnswer, sessionAnswer } from '../../support/session-call';
import { singleHeader, withinTolerance } from '../../support/signing';
import { jsonAcknowledgement } from '../../support/webhook-acknowledgement';
import { apiUrlOf, apiUrlSetting } from '../../support/api-url';
import { secretSetting } from '../../support/secret-setting';
import { providerAdapter } from '../../support/provider-adapter';
import { binanceOrderEvent, binanceOrderId, binanceWebhookEvent } from './binance-order';
import { ASSUMED_TIME_TO_USDC, cardOnly, countriesNotFound } from '../../support/choice-facts';

/**
 * Binance Connect (now "Binance Pay Onchain", Hosted Ramp & Onchain Payment APIs): a pre-order
 * created server-side, then Binance's hosted checkout, where the customer buys with a card and
 * Binance withdraws the crypto to the given address.
 * Docs: developers.binance.com/en/docs/products/connect-2.0 (introduction, product-scope,
 * basics/3.request-signing, basics/7.order-status), developers.binance.com/legacy-docs/binance_connect
 * (on-ramp-buy-apis, webhook) and Binance's own API description for agents (github.com/binance/
 * binance-skills-hub, onchain-pay-open-api: the paths, the pre-order fields, the customization flags).
 * - Requests: POST <API>/papi/v1/ramp/connect/buy/pre-order (and /papi/v1/ramp/connect/order), a
 *   compact JSON body signed with the partner's RSA key: base64 SHA256withRSA of `body + timestamp`
 *   (ms), headers X-Tesla-ClientId, X-Tesla-SignAccessToken (the API key), X-Tesla-Signature,
 *   X-Tesla-Timestamp. Answer `{code: "000000", success: true, data}`.
 * - Pre-order: externalOrderId (the payment id without dashes, `R<n>` after it for a fresh checkout:
 *   letters and digits only, as the pre-order page requires),
 *   merchantCode, merchantName, ts, fiatCurrency, fiatAmount (a JSON number written from the decimal
 *   string), cryptoCurrency USDC, contractAddress (native USDC on Polygon), network, address (the
 *   wallet), payMethodCode BUY_CARD, redirectUrl and failRedirectUrl (the receipt page), customization
 *   LOCK_ORDER_ATTRIBUTES (fiat currency, crypto, amount, payment method, network, address, fiat amount)
 *   and HIDE_SEND → `data.link` (the checkout, on binance.com), `data.linkExpireTime` (ms).
 * - Status: the order look-up by externalOrderId, its integer `status` (binance-order.ts).
 * - Webhook: X-BN-Connect-Signature, base64 SHA256withRSA of `body + X-BN-Connect-Timestamp` by
 *   Binance, verified with the public key Binance gives; X-BN-Connect-For is our client id;
 *   `webhookEventType: connect_order_event`, `externalOrderId`, `type` 1 (buy), `status`.
 *
 * Choices where the docs are open, and facts not confirmed on a page read:
 * - The customer pays inside Binance: it signs in to (or opens) a Binance account on the way.
 * - The network code `MATIC` for Polygon PoS (the crypto-network API lists the codes; `NETWORK`
 *   overrides it), that Binance honours `contractAddress` for USDC, and which USDC it withdraws.
 * - The order look-up's answer fields beyond `status` and `externalOrderId`; no delivery hash is read.
 * - The webhook timestamp in milliseconds and 5 minutes of tolerance (none documented); Binance's
 *   answer body `{returnCode: "SUCCESS"}` (connect-prime's).
 * - The customization flags work only once Binance has enabled them on the merchant; unenabled,
 *   LOCK_ORDER_ATTRIBUTES is ignored and the customer could send the USDC elsewhere. The gateway
 *   cannot ask Binance whether it is enabled, so production requires the operator's word:
 *   PROVIDER_BINANCE_ORDER_LOCK=on (a going-live precondition, docs/operations.md).
 * - Test mode: no sandbox host is documented (Binance gives a test merchant): the same hosts.
 * - Not retried: Binance documents no idempotency for a pre-order (a repeated externalOrderId is refused).
 * - The minimum (20 USD) is a choice; Binance's card limits come from the payment-method list.
 * - No quote(): searched Binance's pages for an on-ramp quote: Connect Prime lists Get Quote
 *   (developers.binance.com/en/docs/products/connect-prime/open-apis), Connect 2.0, which this
 *   adapter follows, documents none in the pages read; its rows show the estimate.
 */

export const BINANCE_API_URL = 'https://api.commonservice.io';
export const BINANCE_TOLERANCE_SECONDS = 300;
const PRE_ORDER = '/papi/v1/ramp/connect/buy/pre-order';
const ORDER = '/papi/v1/ramp/connect/order';
// LOCK_ORDER_ATTRIBUTES codes: 1 fiat currency, 2 crypto currency, 3 amount, 4 payment method, 5 network, 6 address, 7 fiat amount.
const LOCKED_ATTRIBUTES = [1, 2, 3, 4, 5, 6, 7];

const settings = Type.Object({
  CLIENT_ID: Type.String({ pattern: '^[A-Za-z0-9_-]{4,100}$', description: 'client id Binance assigns, sent as X-Tesla-ClientId' }),
  API_KEY: secretSetting({ pattern: '^[A-Za-z0-9_-]{8,200}$' }, 'API key (sign access token), sent as X-Tesla-SignAccessToken'),
  PRIVATE_KEY: Type.String({
    minLength: 100,
    description: "the partner's RSA private key (PKCS#8, PEM or base64 DER) whose public half Binance holds; signs requests",
  }),
  WEBHOOK_PUBLIC_KEY: Type.String({
    minLength: 100,
    description: "Binance's RSA public key (PEM or base64 DER) that verifies X-BN-Connect-Signature on webhooks",
  }),
  MERCHANT_CODE: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'merchant code Binance assigns' }),
  MERCHANT_NAME: Type.String({ pattern: '^[^\\u0000-\\u001f]{1,64}$', description: 'merchant name shown to the customer' }),
  NETWORK: Type.Optional(
    Type.String({ pattern: '^[A-Z0-9_]{2,20}$', description: "Binance's network code for Polygon PoS; default MATIC" }),
  ),
  API_URL: apiUrlSetting('API host; default https://api.commonservice.io'),
  ORDER_LOCK: Type.Optional(
    Type.Union([Type.Literal('on'), Type.Literal('off')], {
      productionValue: 'on',
      description:
        'on once Binance has enabled the customization LOCK_ORDER_ATTRIBUTES (the order-attribute lock) on the merchant, which ' +
        'Binance grants per merchant on request: without it Binance ignores the lock and the customer can change the wallet address, ' +
        'network or amount; required on in production',
    }),
  ),
});

const descriptor: AdapterDescriptor<typeof settings> = {
  hosts: { live: 'https://app.binance.com', test: 'https://app.binance.com' },
  docs: 'https://developers.binance.com/en/docs/products/connect-2.0/introduction',
  id: 'binance',
  displayName: 'Binance',
  currency: 'any',
  minimum: '20',
  minimumCurrency: 'USD',
  // Not published by the provider: assumed range. Searched "Binance Connect fees": no figure found.
  fees: { ...ASSUMED_CARD_FEES, source: 'https://developers.binance.com/en/docs/products/connect-2.0/introduction' },
  methods: cardOnly('https://developers.binance.com/en/docs/products/connect-2.0/introduction'),
  timeToUsdc: ASSUMED_TIME_TO_USDC,
  countries: countriesNotFound("no list of Binance Connect's served countries was read"),
  flow: 'session',
  webhook: 'SHA256withRSA, X-BN-Connect-Signature (Binance public key)',
  delivers: 'native',
  settings,
};

export const binance = defineProvider({
  descriptor,
  create(values, context) {
    const apiUrl = apiUrlOf(values.API_URL, BINANCE_API_URL);
    const privateKey = rsaKey(values.PRIVATE_KEY, 'private');
    const binancePublicKey = rsaKey(values.WEBHOOK_PUBLIC_KEY, 'public');
    const call = (path: string, body: string, signal: AbortSignal, retryable: boolean) =>
      signedCall(context.http, { apiUrl, clientId: values.CLIENT_ID, apiKey: values.API_KEY, privateKey }, path, body, {
        signal,
        retryable,
        now: context.now(),
      });
    return providerAdapter(descriptor, context, {
      async createCheckout(order, { idempotencyKey, signal }) {
        const body = binancePreOrderBody(order, binanceOrderId(idempotencyKey), values, context.now());
        const data = answerData('pre-order', await call(PRE_ORDER, body, signal, false));
        const link = typeof data.link === 'string' ? binanceLink(data.link) : undefined;
        if (!link) throw malformedAnswer('Binance', 'pre-order', 'data.link is not an https link on binance.com');
        const expiresAt = typeof data.linkExpireTime === 'number' && data.linkExpireTime > context.now() ? data.linkExpireTime : undefined;
        return {
          kind: 'redirect',
          url: link,
          providerReference: binanceOrderId(idempotencyKey),
          ...(expiresAt !== undefined ? { expiresAt } : {}),
        };
      },
      async verifyWebhook(rawBody, headers) {
        verifyBinanceSignature(rawBody, headers, { publicKey: binancePublicKey, clientId: values.CLIENT_ID, nowMs: context.now() });
        return { ...binanceWebhookEvent(rawBody), acknowledgement: jsonAcknowledgement({ returnCode: 'SUCCESS', returnMessage: null }) };
      },
      async status(query, { signal }): Promise<ProviderWebhookEvent | null> {
        const externalOrderId = query.providerReference ?? binanceOrderId(query.paymentId);
        const response = await call(ORDER, JSON.stringify({ externalOrderId }), signal, true);
        const answer = lookupAnswer('Binance', 'order', response);
        if (!isObject(answer) || answer.success !== true || !isObject(answer.data)) {
          throw new Error('Binance answered the order look-up without success and an order');
        }
        return binanceOrderEvent({ ...answer.data, externalOrderId }) ?? null;
      },
    });
  },
});

/** The pre-order of one checkout, written once: its bytes are what the signature covers. */
export function binancePreOrderBody(
  order: CheckoutOrder,
  externalOrderId: string,
  values: { MERCHANT_CODE: string; MERCHANT_NAME: string; NETWORK?: string | undefined },
  nowMs: number,
): string {
  const fields = {
    externalOrderId,
    merchantCode: values.MERCHANT_CODE,
    merchantName: values.MERCHANT_NAME,
    ts: nowMs,
    fiatCurrency: order.currency,
    cryptoCurrency: 'USDC',
    contractAddress: POLYGON_USDC.native,
    network: values.NETWORK ?? 'MATIC',
    address: order.walletAddress,
    payMethodCode: 'BUY_CARD',
    redirectUrl: order.returnUrl,
    failRedirectUrl: order.returnUrl,
    customization: { LOCK_ORDER_ATTRIBUTES: LOCKED_ATTRIBUTES, HIDE_SEND: true },
  };
  // Binance takes the amount as a JSON number.
  return jsonWithAmount(fields, 'fiatAmount', decimalAmount('Binance pre-order', order.amount), 'last');
}

interface SigningCredentials {
  apiUrl: string;
  clientId: string;
  apiKey: string;
  privateKey: KeyObject;
}

/** One signed POST: base64 SHA256withRSA over `body + timestamp` (ms), as the request-signing page describes. */
async function signedCall(
  http: ProviderHttpClient,
  credentials: SigningCredentials,
  path: string,
  body: string,
  { signal, retryable, now }: { signal: AbortSignal; retryable: boolean; now: number },
): Promise<ProviderHttpResponse> {
  const timestamp = String(now);
  const signature = sign('sha256', Buffer.from(`${body}${timestamp}`), credentials.privateKey).toString('base64');
  return http.request({
    method: 'POST',
    url: `${credentials.apiUrl}${path}`,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-tesla-clientid': credentials.clientId,
      'x-tesla-signaccesstoken': credentials.apiKey,
      'x-tesla-signature': signature,
      'x-tesla-timestamp': timestamp,
    },
    body,
    signal,
    retryable,
  });
}

/** A session answer's `data`, once Binance says success (`code` 000000); its own code and message otherwise, as a refusal. */
function answerData(call: string, response: ProviderHttpResponse): Record<string, unknown> {
  const answer = sessionAnswer('Binance', call, response);
  if (answer.success !== true || answer.code !== '000000') {
    const code = typeof answer.code === 'string' ? answer.code.slice(0, 20) : 'none';
    const message = typeof answer.message === 'string' ? `: ${answer.message.replace(/\s+/g, ' ').slice(0, 120)}` : '';
    throw new ProviderCheckoutError(`Binance ${call} refused (code ${code}${message})`, 'refused');
  }
  if (!isObject(answer.data)) throw malformedAnswer('Binance', call, 'no data');
  return answer.data;
}

/** The checkout link, only on an https binance.com host: the customer is never sent elsewhere on Binance's word. */
function binanceLink(value: string): string | undefined {
  try {
    const url = new URL(value);
    const onBinance = url.hostname === 'binance.com' || url.hostname.endsWith('.binance.com');
    return url.protocol === 'https:' && onBinance ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * X-BN-Connect-Signature: base64 SHA256withRSA over `body + X-BN-Connect-Timestamp` by Binance's key;
 * X-BN-Connect-For our client id; the timestamp (ms) within 5 minutes of now.
 */
export function verifyBinanceSignature(
  rawBody: Buffer,
  headers: WebhookHeaders,
  { publicKey, clientId, nowMs }: { publicKey: KeyObject; clientId: string; nowMs: number },
): void {
  const timestamp = singleHeader(headers, 'x-bn-connect-timestamp');
  const signature = singleHeader(headers, 'x-bn-connect-signature');
  if (!timestamp || !signature) throw new ProviderWebhookError('missing X-BN-Connect-Timestamp or X-BN-Connect-Signature');
  if (singleHeader(headers, 'x-bn-connect-for') !== clientId) throw new ProviderWebhookError('X-BN-Connect-For is not our client id');
  if (!withinTolerance(timestamp, 'milliseconds', nowMs, BINANCE_TOLERANCE_SECONDS)) {
    throw new ProviderWebhookError(`X-BN-Connect-Timestamp is more than ${BINANCE_TOLERANCE_SECONDS} s from now`);
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) throw new ProviderWebhookError('X-BN-Connect-Signature is not base64');
  const valid = verify('sha256', Buffer.concat([rawBody, Buffer.from(timestamp)]), publicKey, Buffer.from(signature, 'base64'));
  if (!valid) throw new ProviderWebhookError('X-BN-Connect-Signature does not match the body');
}

/** An RSA key as Binance's pages show them (base64 DER: PKCS#8 private, SPKI public) or as PEM; anything else stops the boot. */
function rsaKey(text: string, kind: 'private' | 'public'): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----BEGIN')
    ? kind === 'private'
      ? createPrivateKey(trimmed)
      : createPublicKey(trimmed)
    : kind === 'private'
      ? createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' })
      : createPublicKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'rsa') throw new Error(`the ${kind} key is not an RSA key`);
  return key;
}
