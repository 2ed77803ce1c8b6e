import {
  parseCheckoutLink,
  providerOptions,
  unknownWalletError,
  type CheckoutLink,
  type LinkProblem,
  type ProviderOption,
  type ProviderTerms,
  type RateTable,
  type SealingKeyRing,
} from '@gateway/domain';
import type { RateReader } from '@gateway/rates';

/** The query as it arrived: any parameter may be missing, repeated (an array) or anything at all. */
export type RawQuery = Readonly<Record<string, unknown>>;

export type CheckoutOffer =
  | { kind: 'offer'; link: CheckoutLink; options: ProviderOption[]; ratesError?: unknown }
  /** `invalid_link` and `unknown_wallet` are Process Payment's 400s; the wallet lookup failing is a 503. */
  | {
      kind: 'error';
      status: 400 | 503;
      reason: 'invalid_link' | 'unknown_wallet' | 'wallet_lookup_failed';
      problems: LinkProblem[];
      cause?: unknown;
    };

export interface HostedCheckoutDeps {
  keys: SealingKeyRing;
  wallets: { hasTemporaryAddress(polygonAddress: string): Promise<boolean> };
  rates: RateReader;
  /** The providers this gateway offers, in the order listed. */
  providers: readonly ProviderTerms[];
}

/**
 * The hosted multi-provider checkout (`pay.php`): reads the link as Process Payment does, and
 * answers which providers take the order and at what amount (`providerOptions` in packages/domain).
 */
export class HostedCheckoutService {
  constructor(private readonly deps: HostedCheckoutDeps) {}

  async prepare(query: RawQuery): Promise<CheckoutOffer> {
    const parsed = parseCheckoutLink(query, this.deps.keys);
    if ('problems' in parsed) return { kind: 'error', status: 400, reason: 'invalid_link', problems: parsed.problems };
    const { link } = parsed;
    let known: boolean;
    try {
      known = await this.deps.wallets.hasTemporaryAddress(link.temporaryAddress);
    } catch (cause) {
      return { kind: 'error', status: 503, reason: 'wallet_lookup_failed', problems: [], cause };
    }
    if (!known) {
      return {
        kind: 'error',
        status: 400,
        reason: 'unknown_wallet',
        problems: [{ param: 'address', message: unknownWalletError().message }],
      };
    }
    let rates: RateTable | undefined;
    let ratesError: unknown;
    try {
      rates = (await this.deps.rates.current()).rates;
    } catch (error) {
      ratesError = error;
    }
    return { kind: 'offer', link, options: providerOptions(link.amount, link.currency, rates, this.deps.providers), ratesError };
  }
}
