import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CheckoutRequest, ProviderAdapter } from './provider-adapter';

export interface SandboxAdapterOptions {
  /** Base URL of the sandbox provider app, e.g. http://127.0.0.1:3300. */
  baseUrl: string;
  /** HMAC key shared with the sandbox provider, so it can trust what the link says. */
  signingSecret: Buffer;
}

/** The query fields of a sandbox checkout link, in the order they are signed. */
export const SANDBOX_SIGNED_FIELDS = ['payment', 'provider', 'address', 'amount', 'currency', 'email', 'expires'] as const;
export const SANDBOX_LINK_LIFETIME_SECONDS = 60 * 60;

/**
 * Stands in for every on-ramp when no provider credentials are configured: the customer lands
 * on the sandbox's checkout page, which simulates a card payment and sends test USDC on the
 * local chain. The link is signed, so a customer cannot change the amount or the wallet.
 */
export function createSandboxAdapter(providerId: string, options: SandboxAdapterOptions): ProviderAdapter {
  return {
    id: providerId,
    capabilities: { checkout: 'redirect', live: false },
    buildCheckoutUrl(request: CheckoutRequest): string {
      const fields: Record<(typeof SANDBOX_SIGNED_FIELDS)[number], string> = {
        payment: request.paymentId,
        provider: request.provider.id,
        address: request.walletAddress,
        amount: request.amount,
        currency: request.currency,
        email: request.email,
        expires: String(Math.floor(Date.now() / 1000) + SANDBOX_LINK_LIFETIME_SECONDS),
      };
      const query = new URLSearchParams(fields);
      query.set('sig', signSandboxFields(fields, options.signingSecret));
      return `${options.baseUrl.replace(/\/$/, '')}/checkout?${query.toString()}`;
    },
  };
}

export function signSandboxFields(fields: Record<string, string>, secret: Buffer): string {
  const canonical = SANDBOX_SIGNED_FIELDS.map((name) => `${name}=${fields[name] ?? ''}`).join('\n');
  return createHmac('sha256', secret).update(canonical).digest('base64url');
}

/** For the sandbox provider app: true when the link is ours, unaltered and not expired. */
export function verifySandboxLink(query: URLSearchParams, secret: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const fields = Object.fromEntries(SANDBOX_SIGNED_FIELDS.map((name) => [name, query.get(name) ?? '']));
  const given = Buffer.from(query.get('sig') ?? '');
  const expected = Buffer.from(signSandboxFields(fields, secret));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  return Number(fields.expires) >= nowSeconds;
}
