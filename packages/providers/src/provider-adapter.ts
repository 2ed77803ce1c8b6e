import type { CurrencyCode, ProviderEntry } from '@gateway/domain';

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
}

export interface ProviderCapabilities {
  /** Checkout is a redirect of the customer's browser (never an iframe, spec 1.5). */
  readonly checkout: 'redirect';
  /** Whether the adapter can build a real checkout (credentials present) or simulates one. */
  readonly live: boolean;
}

export interface ProviderAdapter {
  readonly id: string;
  readonly capabilities: ProviderCapabilities;
  buildCheckoutUrl(request: CheckoutRequest): string;
}
