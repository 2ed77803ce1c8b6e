import {
  feePayerOf,
  parseCheckoutLink,
  providerOptions,
  rankCheckoutOptions,
  unknownWalletError,
  type AvailableProviderOption,
  type CheckoutLink,
  type CheckoutRanking,
  type CountryCode,
  type LinkProblem,
  type ProviderOption,
  type ProviderTerms,
  type RateTable,
  type SealingKeyRing,
} from '@gateway/domain';
import type { RateReader } from '@gateway/rates';
import {
  inOperatorOrder,
  listedOptions,
  priceRows,
  rankingContext,
  type CheckoutPorts,
  type RequestHeaders,
  type RowPrices,
} from './checkout-rows';
import type { WalletOrderTerms } from '@gateway/db/payment-redirect';

/** The query as it arrived: any parameter may be missing, repeated (an array) or anything at all. */
export type RawQuery = Readonly<Record<string, unknown>>;

export type CheckoutOffer =
  | {
      kind: 'offer';
      link: CheckoutLink;
      /** Every provider of the page: available (in `ranking`), unavailable with the reason, or withheld. */
      options: ProviderOption[];
      /** The available ones in the page's order, recommended and more (rankCheckoutOptions). */
      ranking: CheckoutRanking;
      /** What each available one costs and brings: its quote, or the estimate from its documented fees. */
      prices: RowPrices;
      /** The customer's country, when a trusted proxy said it. */
      country?: CountryCode;
      ratesError?: unknown;
    }
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
  /** The order's wallet: whether it exists, its fee terms and who pays the fees (undefined: no such wallet). */
  wallets: { orderTermsOf(polygonAddress: string): Promise<WalletOrderTerms | undefined> };
  /** CUSTOMER_PAYS_FEES: the operator's choice where the wallet has none of its own. */
  customerPaysFees?: boolean;
  rates: RateReader;
  /** The providers this gateway offers, in the order listed. */
  providers: readonly ProviderTerms[];
  /** Quotes, measured checkouts, the circuit breaker and the customer's country, where the app has them. */
  ports?: CheckoutPorts;
}

/**
 * The hosted multi-provider checkout (`pay.php`): reads the link as Process Payment does, and
 * answers which providers take the order and at what amount (`providerOptions` in packages/domain),
 * in the order the page lists them (`rankCheckoutOptions`) with what each costs and brings.
 */
export class HostedCheckoutService {
  constructor(private readonly deps: HostedCheckoutDeps) {}

  async prepare(query: RawQuery, headers: RequestHeaders = {}): Promise<CheckoutOffer> {
    const parsed = parseCheckoutLink(query, this.deps.keys);
    if ('problems' in parsed) return { kind: 'error', status: 400, reason: 'invalid_link', problems: parsed.problems };
    const { link } = parsed;
    let terms: WalletOrderTerms | undefined;
    try {
      terms = await this.deps.wallets.orderTermsOf(link.temporaryAddress);
    } catch (cause) {
      return { kind: 'error', status: 503, reason: 'wallet_lookup_failed', problems: [], cause };
    }
    if (!terms) {
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
    const ports = this.deps.ports ?? {};
    const options = await listedOptions(inOperatorOrder(providerOptions(link.amount, link.currency, rates, this.deps.providers)), ports);
    const available = options.filter((option): option is AvailableProviderOption => option.status === 'available');
    const location = ports.customerLocation?.(headers);
    const country = location?.country;
    const payer = feePayerOf(this.deps.customerPaysFees ?? false, terms.customerPaysFee);
    const prices = await priceRows(available, rates, ports, { fees: { payer, terms }, location });
    const ranking = rankCheckoutOptions(options, await rankingContext(prices, { rates, ...(country ? { country } : {}) }, ports));
    return { kind: 'offer', link, options, ranking, prices, ...(country ? { country } : {}), ratesError };
  }
}
