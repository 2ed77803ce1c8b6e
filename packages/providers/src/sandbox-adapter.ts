import { createHmac } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { deliveryTxHash, isDeclineKind, type DeclineKind, type ProviderTerms } from '@gateway/domain';
import { ProviderWebhookError } from './provider-contract';
import type {
  CheckoutOrder,
  CreatedCheckout,
  ProviderAdapter,
  ProviderDescriptor,
  ProviderPaymentStatus,
  ProviderStatusQuery,
  ProviderWebhookEvent,
  WebhookHeaders,
  WebhookOutcome,
} from './provider-contract';
import { safeEqual, singleHeader } from './support/signing';
import { declineKindField } from './support/webhook-event';
import { jsonAcknowledgement } from './support/webhook-acknowledgement';
import { webhookJson } from './support/webhook-json';

export interface SandboxAdapterOptions {
  /** Base URL of the sandbox provider app, e.g. http://127.0.0.1:3300. */
  baseUrl: string;
  /** HMAC key shared with the sandbox provider, so it can trust what the link says. */
  signingSecret: Buffer;
}

/** The query fields of a sandbox checkout link, in the order they are signed. */
export const SANDBOX_SIGNED_FIELDS = ['payment', 'provider', 'address', 'amount', 'currency', 'email', 'return_url', 'expires'] as const;
export type SandboxLinkFields = Record<(typeof SANDBOX_SIGNED_FIELDS)[number], string>;
export const SANDBOX_LINK_LIFETIME_SECONDS = 60 * 60;

/**
 * The sandbox app's fee, its PROVIDER_FEE_BPS default (apps/sandbox-provider/src/config.ts). The
 * gateway does not read the sandbox's settings, so a sandbox run with another fee is estimated with
 * this one.
 */
export const SANDBOX_PROVIDER_FEE_BPS = 150;

export const SANDBOX_WEBHOOK_SIGNATURE_HEADER = 'x-sandbox-signature';
/** A webhook signed longer ago than this is refused (a replay, or a clock far off). */
export const SANDBOX_WEBHOOK_TOLERANCE_SECONDS = 300;
const WEBHOOK_STATUSES: readonly ProviderPaymentStatus[] = ['pending', 'paid', 'declined', 'failed'];

/** The sandbox provider's order look-up: `GET <baseUrl>/orders/<payment id>`, signed like a webhook. */
export const sandboxOrderPath = (paymentId: string): string => `/orders/${encodeURIComponent(paymentId)}`;

/** What the order look-up answers (200); 404 while the sandbox has no such order. */
export interface SandboxOrderStatusBody {
  payment_id: string;
  order_id: string;
  status: 'pending' | 'paid';
}

/** The JSON body the sandbox provider posts to `{payment_url}/webhooks/<provider>`. */
export interface SandboxWebhookBody {
  payment_id: string;
  status: ProviderPaymentStatus;
  order_id: string;
  reason?: string;
  /**
   * With `declined` or `failed`: the kind of the reason (the sandbox's test cards, one per kind:
   * apps/sandbox-provider/src/services/card-check.ts and the README's test card table).
   */
  decline_kind?: DeclineKind;
  /** With `paid`: the transaction that sent the test USDC. */
  tx_hash?: string;
}

/**
 * Stands in for an on-ramp that has no credentials on a local stack: the customer lands on the
 * sandbox's checkout page, which simulates a card payment and sends test USDC on the local chain.
 * The link is signed, so a customer cannot change the amount, the wallet or the page it returns
 * to. Never in production (the registry refuses it there).
 */
export function createSandboxAdapter(provider: ProviderTerms, options: SandboxAdapterOptions): ProviderAdapter {
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const descriptor: ProviderDescriptor = {
    id: provider.id,
    displayName: provider.displayName,
    currency: provider.currency,
    ...(provider.currencies ? { currencies: provider.currencies } : {}),
    minimum: provider.minimum,
    minimumCurrency: provider.minimumCurrency,
    fees: {
      minBps: SANDBOX_PROVIDER_FEE_BPS,
      maxBps: SANDBOX_PROVIDER_FEE_BPS,
      source: 'PROVIDER_FEE_BPS of apps/sandbox-provider (this repository)',
    },
    // What the page says of the provider it stands in for, so a local stack's checkout reads as production's would.
    ...(provider.methods ? { methods: provider.methods } : {}),
    ...(provider.timeToUsdc ? { timeToUsdc: provider.timeToUsdc } : {}),
    ...(provider.countries ? { countries: provider.countries } : {}),
    ...(provider.maximum ? { maximum: provider.maximum } : {}),
    ...(provider.lightChecksUpTo ? { lightChecksUpTo: provider.lightChecksUpTo } : {}),
    flow: 'signed-url',
    webhook: `HMAC-SHA256, ${SANDBOX_WEBHOOK_SIGNATURE_HEADER}`,
    delivers: 'native',
    settings: Type.Object({}),
    hosts: { live: baseUrl, test: baseUrl },
    docs: 'apps/sandbox-provider (this repository)',
  };
  return {
    descriptor,
    mode: 'sandbox',
    async createCheckout(order: CheckoutOrder): Promise<CreatedCheckout> {
      const expiresSeconds = Math.floor(Date.now() / 1000) + SANDBOX_LINK_LIFETIME_SECONDS;
      return {
        kind: 'redirect',
        url: sandboxCheckoutUrl(baseUrl, provider.id, order, options.signingSecret, expiresSeconds),
        expiresAt: expiresSeconds * 1000,
      };
    },
    async verifyWebhook(rawBody: Buffer, headers: WebhookHeaders): Promise<WebhookOutcome> {
      if (!verifySandboxWebhook(rawBody, singleHeader(headers, SANDBOX_WEBHOOK_SIGNATURE_HEADER), options.signingSecret)) {
        throw new ProviderWebhookError(`missing, invalid or expired ${SANDBOX_WEBHOOK_SIGNATURE_HEADER}`);
      }
      const body = parseWebhookBody(rawBody);
      return {
        kind: 'event',
        event: {
          match: { paymentId: body.payment_id },
          status: body.status,
          rawStatus: body.status,
          providerReference: body.order_id,
          ...(body.reason ? { reason: body.reason } : {}),
          ...declineKindField(body.status, body.decline_kind),
          ...(body.tx_hash ? { txHash: body.tx_hash } : {}),
        },
        acknowledgement: jsonAcknowledgement({ received: true }),
      };
    },
    async status(query: ProviderStatusQuery, { signal }): Promise<ProviderWebhookEvent | null> {
      const path = sandboxOrderPath(query.paymentId);
      const response = await fetch(`${baseUrl}${path}`, {
        headers: {
          accept: 'application/json',
          [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(`GET ${path}`, options.signingSecret),
        },
        signal,
      });
      if (response.status === 404) return null;
      if (response.status !== 200) throw new Error(`the sandbox answered the order look-up with HTTP ${response.status}`);
      const body = (await response.json()) as Partial<SandboxOrderStatusBody>;
      if (body.payment_id !== query.paymentId || typeof body.order_id !== 'string' || !['pending', 'paid'].includes(body.status ?? '')) {
        throw new Error('the sandbox answered the order look-up with another shape');
      }
      const status = body.status as SandboxOrderStatusBody['status'];
      return { match: { paymentId: body.payment_id }, status, rawStatus: status, providerReference: body.order_id };
    },
  };
}

/** The signed sandbox checkout link of an order (the sandbox provider app verifies it). */
export function sandboxCheckoutUrl(
  baseUrl: string,
  providerId: string,
  order: CheckoutOrder,
  secret: Buffer,
  expiresSeconds = Math.floor(Date.now() / 1000) + SANDBOX_LINK_LIFETIME_SECONDS,
): string {
  const fields: SandboxLinkFields = {
    payment: order.paymentId,
    provider: providerId,
    address: order.walletAddress,
    amount: order.amount,
    currency: order.currency,
    email: order.email,
    return_url: order.returnUrl,
    expires: String(expiresSeconds),
  };
  const query = new URLSearchParams(fields);
  query.set('sig', signSandboxFields(fields, secret));
  return `${baseUrl}/checkout?${query.toString()}`;
}

export function signSandboxFields(fields: Record<string, string>, secret: Buffer): string {
  const canonical = SANDBOX_SIGNED_FIELDS.map((name) => `${name}=${fields[name] ?? ''}`).join('\n');
  return createHmac('sha256', secret).update(canonical).digest('base64url');
}

export type SandboxLinkVerdict = { ok: true; fields: SandboxLinkFields } | { ok: false; reason: 'bad_signature' | 'expired' };

/** For the sandbox provider app: the link's fields when it is ours, unaltered and not expired. */
export function verifySandboxLink(query: URLSearchParams, secret: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): SandboxLinkVerdict {
  const fields = Object.fromEntries(SANDBOX_SIGNED_FIELDS.map((name) => [name, query.get(name) ?? ''])) as SandboxLinkFields;
  if (!safeEqual(query.get('sig') ?? '', signSandboxFields(fields, secret))) return { ok: false, reason: 'bad_signature' };
  if (!(Number(fields.expires) >= nowSeconds)) return { ok: false, reason: 'expired' };
  return { ok: true, fields };
}

/** For the sandbox provider app: the signature header of a webhook body, `t=<unix>,v1=<hex>`. */
export function signSandboxWebhook(rawBody: Buffer | string, secret: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${nowSeconds},v1=${webhookMac(String(nowSeconds), rawBody, secret)}`;
}

export function verifySandboxWebhook(
  rawBody: Buffer,
  header: string | undefined,
  secret: Buffer,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const match = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) return false;
  const [, t = '', mac = ''] = match;
  if (Math.abs(nowSeconds - Number(t)) > SANDBOX_WEBHOOK_TOLERANCE_SECONDS) return false;
  return safeEqual(mac, webhookMac(t, rawBody, secret));
}

// "webhook." keeps a webhook MAC from ever equalling a checkout link MAC made with the same key.
function webhookMac(t: string, rawBody: Buffer | string, secret: Buffer): string {
  return createHmac('sha256', secret).update(`webhook.${t}.`).update(rawBody).digest('hex');
}

function parseWebhookBody(rawBody: Buffer): SandboxWebhookBody {
  const body = webhookJson(rawBody, 'webhook body') as Partial<SandboxWebhookBody>;
  if (typeof body !== 'object' || body === null) throw new ProviderWebhookError('webhook body is not a JSON object');
  const { payment_id, status, order_id, reason, decline_kind, tx_hash } = body;
  if (typeof payment_id !== 'string' || typeof order_id !== 'string' || !WEBHOOK_STATUSES.includes(status as ProviderPaymentStatus)) {
    throw new ProviderWebhookError('webhook body needs payment_id, order_id and a known status');
  }
  return {
    payment_id,
    order_id,
    status: status as ProviderPaymentStatus,
    ...(typeof reason === 'string' ? { reason: reason.slice(0, 200) } : {}),
    // A kind the sandbox does not document is no kind: the failure is then `other`.
    ...(typeof decline_kind === 'string' && isDeclineKind(decline_kind) ? { decline_kind } : {}),
    ...(deliveryTxHash(tx_hash) ? { tx_hash: deliveryTxHash(tx_hash) } : {}),
  };
}
