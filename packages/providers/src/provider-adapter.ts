import type { CurrencyCode, ProviderEntry, ProviderPaymentStatus } from '@gateway/domain';

export type { ProviderPaymentStatus };

/** What the gateway asks an on-ramp for: deliver USDC for this order to this wallet. */
export interface CheckoutRequest {
  provider: ProviderEntry;
  /** Gateway payment id; comes back in the provider's webhook or redirect. */
  paymentId: string;
  /** Temporary wallet that receives the USDC. */
  walletAddress: string;
  /** Fiat amount as a decimal string with two decimals. */
  amount: string;
  currency: CurrencyCode;
  email: string;
  /** The gateway's receipt page for this payment: where the provider sends the customer back. */
  returnUrl: string;
}

/**
 * What a provider says about a payment. It updates what the customer and the merchant see; it
 * never moves funds or sends a merchant callback (the chain is the source of truth for money).
 */
export interface ProviderWebhookEvent {
  paymentId: string;
  status: ProviderPaymentStatus;
  /** The provider's own id for the order, for support. */
  reference: string;
  /** Why a payment was declined or failed, in words a customer understands. */
  reason?: string;
}

export interface ProviderWebhookRequest {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body exactly as received: signatures are computed over bytes, not parsed JSON. */
  rawBody: Buffer;
}

export interface ProviderCapabilities {
  /** Checkout is a redirect of the customer's browser (never an iframe, spec 1.5). */
  readonly checkout: 'redirect';
  /** Whether the adapter can build a real checkout (credentials present) or simulates one. */
  readonly live: boolean;
  /** Whether the provider reports status by signed webhook. */
  readonly webhooks: boolean;
}

export interface ProviderAdapter {
  readonly id: string;
  readonly capabilities: ProviderCapabilities;
  buildCheckoutUrl(request: CheckoutRequest): string;
  /** Verifies and reads a webhook; throws {@link ProviderWebhookError} when it is not authentic. */
  parseWebhook(request: ProviderWebhookRequest): ProviderWebhookEvent;
}

export class ProviderWebhookError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderWebhookError';
  }
}
