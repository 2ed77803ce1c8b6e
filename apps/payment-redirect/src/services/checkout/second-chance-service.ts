import {
  feePayerOf,
  GatewayError,
  isUuid,
  parseCurrency,
  parseFiatAmount,
  providerOptions,
  rankSecondChance,
  secondChanceFormTokenMatches,
  secondChanceOpen,
  secondChanceProviders,
  type AvailableProviderOption,
  type CountryCode,
  type CurrencyCode,
  type CustomerLocation,
  type DeclineKind,
  type EvmAddress,
  type FiatAmount,
  type ProviderPaymentStatus,
  type ProviderTerms,
  type ProviderOption,
  type RateTable,
  type SecondChanceRanking,
} from '@gateway/domain';
import type { RateReader } from '@gateway/rates';
import type { PaymentReceiptRepository, PaymentRepository, RecordedExpectation, WalletOrderTerms } from '@gateway/db/payment-redirect';
import type { ProviderRegistry } from '@gateway/providers';
import {
  inOperatorOrder,
  listedOptions,
  priceRows,
  rankingContext,
  type CheckoutPorts,
  type RequestHeaders,
  type RowPrices,
} from '../checkout-rows';
import { CheckoutFailedError } from './provider-checkout';
import type { PaymentService, StartedPayment } from './payment-service';

/**
 * Why a second chance was not started: no such payment; not asked with the payment's key (the
 * browser that started it holds it); it is not open; the provider cannot take the order; or the
 * payment (SECOND_CHANCES_MAX) or its order (ORDER_ATTEMPTS_MAX) has had as many as it may.
 */
export type RetryRefusal = 'no_payment' | 'key_required' | 'closed' | 'provider_not_accepted' | 'exhausted';

/** What a browser presents to act on a payment: the keys it sent (cookies, the link's query) and the second-chance form's token. */
export interface PaymentCredentials {
  keys: readonly string[];
  formToken?: string;
}

/** What became of a second chance asked for. */
export type SecondChanceOutcome =
  | { kind: 'started'; payment: StartedPayment }
  | { kind: 'refused'; refusal: RetryRefusal }
  /** The new payment is recorded, but its provider gave no checkout. */
  | { kind: 'checkout_failed'; failure: CheckoutFailedError };

/** Where the second chance's form lands: the new payment, named for the page that goes on to its checkout. */
export type Continuation =
  | { kind: 'not_found' }
  | { kind: 'continue'; paymentId: string; providerName: string; amount: string; currency: string };

/** What the second chance needs to know of a payment to say whether it is open, and to whom. */
export interface SecondChancePayment {
  /** The order it is an attempt of: its fee terms say who pays the provider's fees on the next try. */
  walletId: string;
  provider: string;
  amount: string;
  currency: string;
  providerStatus: ProviderPaymentStatus | null;
  /**
   * The kind of the reason the provider gave up (migration 035; null when it reported none): issue 32 orders the
   * choices by it.
   */
  providerDeclineKind: DeclineKind | null;
  usdcArrived: boolean;
}

export interface SecondChanceServiceDeps {
  payments: Pick<PaymentRepository, 'findCheckout' | 'claimSecondChance'>;
  receipts: Pick<PaymentReceiptRepository, 'findSummary'>;
  providers: ProviderRegistry;
  rates: RateReader;
  /** Records the new payment and opens its checkout, as Process Payment does. */
  processPayment: Pick<PaymentService, 'begin'>;
  /** SECOND_CHANCES_MAX. */
  secondChances: number;
  /** Quotes, measured checkouts, the circuit breaker and the customer's country, where the app has them. */
  ports?: CheckoutPorts;
  /** The wallet's order terms: a next try's row says who pays the fees as its checkout will (Process Payment reads the same). */
  wallets: { orderTermsOfWallet(walletId: string): Promise<WalletOrderTerms | undefined> };
  /** CUSTOMER_PAYS_FEES: the operator's default where the wallet did not say. */
  customerPaysFees?: boolean;
}

/** The second chance's rows after a decline: ordered by its kind (rankSecondChance), with what each costs and brings. */
export interface NextTries {
  ranking: SecondChanceRanking;
  prices: RowPrices;
  country?: CountryCode;
}

/**
 * The second chance (`POST /payment/<id>/retry`): a customer whose provider gave up on the payment
 * pays the same order, into the same wallet, with another provider that takes it.
 */
export class SecondChanceService {
  constructor(private readonly deps: SecondChanceServiceDeps) {}

  /**
   * The providers a payment the provider gave up on may be paid with instead, each with the charge
   * it would be asked for (the hosted checkout's rules); empty when the second chance is not open.
   */
  async offers(payment: SecondChancePayment): Promise<AvailableProviderOption[]> {
    if (!secondChanceOpen(payment.providerStatus, payment.usdcArrived)) return [];
    const { options } = await this.optionsFor(payment);
    return secondChanceProviders(options, payment.provider);
  }

  /**
   * The offers as the receipt lists them: ordered by the kind of the decline (`other` when the
   * provider reported none), each with its price; null when the second chance is not open or no
   * provider is left.
   */
  async nextTries(payment: SecondChancePayment, headers: RequestHeaders = {}): Promise<NextTries | null> {
    if (!secondChanceOpen(payment.providerStatus, payment.usdcArrived)) return null;
    const ports = this.deps.ports ?? {};
    const { options: all, rates } = await this.optionsFor(payment);
    const options = await listedOptions(inOperatorOrder(all), ports);
    const available = secondChanceProviders(options, payment.provider);
    if (available.length === 0) return null;
    const location = ports.customerLocation?.(headers);
    const country = location?.country;
    const terms = await this.deps.wallets.orderTermsOfWallet(payment.walletId);
    const fees = terms ? { payer: feePayerOf(this.deps.customerPaysFees ?? false, terms.customerPaysFee), terms } : undefined;
    const prices = await priceRows(available, rates, ports, { fees, location });
    const context = await rankingContext(prices, { rates, ...(country ? { country } : {}) }, ports);
    const ranking = rankSecondChance(options, payment.provider, payment.providerDeclineKind ?? 'other', { ...context, rates });
    return { ranking, prices, ...(country ? { country } : {}) };
  }

  private async optionsFor(payment: SecondChancePayment): Promise<{ options: ProviderOption[]; rates: RateTable | undefined }> {
    let rates: RateTable | undefined;
    try {
      rates = (await this.deps.rates.current()).rates;
    } catch {
      // Without rates providerOptions still offers what needs none (every provider for a USD order).
      rates = undefined;
    }
    const options = providerOptions(parseFiatAmount(payment.amount), parseCurrency(payment.currency), rates, this.deps.providers.offered);
    return { options, rates };
  }

  /**
   * A new payment for the same wallet, order and e-mail with `providerId`, recorded and sent to its
   * checkout exactly as Process Payment does. Only for the holder of the payment's key, with the
   * form's token derived from it; one of the payment's SECOND_CHANCES_MAX is taken before the new
   * payment is recorded.
   */
  async take(
    paymentId: string,
    providerId: string,
    customerIp: string,
    credentials: PaymentCredentials,
    location?: CustomerLocation,
  ): Promise<SecondChanceOutcome> {
    const payment = await this.deps.payments.findCheckout(paymentId);
    if (!payment) return refused('no_payment');
    if (!secondChanceFormTokenMatches(credentials.formToken ?? '', credentials.keys, payment.keyHash, paymentId)) {
      return refused('key_required');
    }
    // A rest payment is part of its order: another provider for its amount alone would be judged as a new order (the receipt offers the rest again).
    if (payment.completes !== null || !secondChanceOpen(payment.providerStatus, payment.hasDeposit)) return refused('closed');
    const choices = await this.offers({ ...payment, usdcArrived: payment.hasDeposit });
    const chosen = choices.find((option) => option.provider.id === providerId);
    if (!chosen) return refused('provider_not_accepted');
    if (!(await this.deps.payments.claimSecondChance(paymentId, this.deps.secondChances))) return refused('exhausted');
    return startOnSameOrder(this.deps.processPayment, payment, chosen, customerIp, location ? { location } : {});
  }

  /** The payment the second chance started, by name: a small read, not its receipt. */
  async continuation(paymentId: string): Promise<Continuation> {
    if (!isUuid(paymentId)) return { kind: 'not_found' };
    const payment = await this.deps.receipts.findSummary(paymentId.toLowerCase());
    if (!payment) return { kind: 'not_found' };
    return {
      kind: 'continue',
      paymentId: payment.id,
      providerName: this.deps.providers.describe(payment.provider)?.displayName ?? payment.provider,
      amount: payment.amount,
      currency: payment.currency,
    };
  }
}

export function refused(refusal: RetryRefusal): SecondChanceOutcome {
  return { kind: 'refused', refusal };
}

/**
 * Another attempt on the order of `payment` (its wallet, its customer's e-mail) with the provider and
 * charge chosen: a second chance, or the rest of an underpaid order with that order's expectation.
 */
export async function startOnSameOrder(
  processPayment: Pick<PaymentService, 'begin'>,
  payment: { polygonAddress: string; email: string },
  chosen: { provider: ProviderTerms; charge: { amount: FiatAmount; currency: CurrencyCode } },
  customerIp: string,
  options: { expectation?: RecordedExpectation; location?: CustomerLocation } = {},
): Promise<SecondChanceOutcome> {
  try {
    const started = await processPayment.begin(
      {
        temporaryAddress: payment.polygonAddress as EvmAddress,
        amount: chosen.charge.amount,
        currency: chosen.charge.currency,
        provider: chosen.provider,
        email: payment.email,
      },
      customerIp,
      'link',
      options,
    );
    return { kind: 'started', payment: started };
  } catch (error) {
    if (error instanceof CheckoutFailedError) return { kind: 'checkout_failed', failure: error };
    if (error instanceof GatewayError && error.code === 'order_attempts_exhausted') return refused('exhausted');
    throw error;
  }
}
