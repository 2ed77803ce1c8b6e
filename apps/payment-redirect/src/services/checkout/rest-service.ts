import {
  orderStanding,
  orderWindowEndsAt,
  parseCurrency,
  parseRecordedRate,
  restOptions,
  restProviders,
  secondChanceFormTokenMatches,
  type AvailableProviderOption,
} from '@gateway/domain';
import type { PaymentReceiptRepository, PaymentRepository, ReceiptOrderRecord, RecordedExpectation } from '@gateway/db/payment-redirect';
import type { ProviderRegistry } from '@gateway/providers';
import type { PaymentService } from './payment-service';
import { type PaymentCredentials, refused, type SecondChanceOutcome, startOnSameOrder } from './second-chance-service';

/** What an underpaid order is missing, and what the attempt that pays it must record. */
export interface MissingRest {
  missingUsdc: bigint;
  /** The order's currency and its recorded rate (units per 1 USD): the rest is priced at it. */
  currency: string;
  usdRate: string;
  /** The expectation the order is judged by, recorded again on the rest's row (with a window of its own). */
  expectation: Omit<RecordedExpectation, 'windowEndsAt' | 'completes'>;
  /** The attempt whose order the rest completes (the order's own, never another rest). */
  completes: string;
  /** The provider of the order's latest attempt: the one the customer chose last is offered first. */
  provider: string;
}

export interface RestServiceDeps {
  payments: Pick<PaymentRepository, 'findCheckout' | 'claimSecondChance'>;
  receipts: Pick<PaymentReceiptRepository, 'findOrder'>;
  providers: ProviderRegistry;
  /** Records the new payment with the order's expectation and opens its checkout, as Process Payment does. */
  processPayment: Pick<PaymentService, 'begin'>;
  /** SECOND_CHANCES_MAX: a rest taken from a payment counts as one of its second chances. */
  secondChances: number;
  /** ORDER_WINDOW_HOURS: the rest's provider order is new, and so is its window. */
  windowHours: number;
}

/**
 * Paying the rest (`POST /payment/<id>/rest`): a customer whose order is underpaid pays what is
 * missing into the same wallet, through a provider whose minimum takes it. The new attempt is for
 * the rest's amount but records the order's expectation, so the order is still judged whole.
 */
export class RestService {
  constructor(private readonly deps: RestServiceDeps) {}

  /** The rest of a wallet's order as its facts judge it: undefined unless the order is underpaid. */
  missing(order: ReceiptOrderRecord | undefined): MissingRest | undefined {
    if (!order?.expectation || !order.attempt || !order.order) return undefined;
    const judged = orderStanding(order).judged;
    const { usdRate, usdRateSource, usdRateAsOf } = order.order;
    // payments_expectation_whole (migration 029) leaves the rate's columns out: an order recorded without them has no rest here.
    if (judged?.state !== 'underpaid' || usdRate === null || usdRateSource === null || usdRateAsOf === null) return undefined;
    const { attempt, expectation } = order;
    return {
      missingUsdc: judged.missingUsdc,
      currency: order.order.currency,
      usdRate,
      expectation: {
        amountUsd: attempt.amountUsd,
        usdRate,
        usdRateSource,
        usdRateAsOf,
        expectedUsdc: expectation.usdc,
        basis: expectation.basis,
        toleranceBps: expectation.toleranceBps,
      },
      completes: order.order.paymentId,
      provider: attempt.provider,
    };
  }

  /**
   * The providers that take the rest, each with its charge (the largest fee of its checkout priced
   * in: the sandbox's own where it stands in, as the expectation was), the one the customer chose
   * last first; empty when none does.
   */
  offers(rest: MissingRest): AvailableProviderOption[] {
    const { providers } = this.deps;
    const offered = providers.offered.map((terms) => ({ ...terms, fees: providers.adapter(terms.id)?.descriptor.fees ?? terms.fees }));
    const options = restProviders(
      restOptions({
        missingUsdc: rest.missingUsdc,
        currency: parseCurrency(rest.currency),
        rate: parseRecordedRate(rest.usdRate),
        offered,
      }),
    );
    return [
      ...options.filter((option) => option.provider.id === rest.provider),
      ...options.filter((option) => option.provider.id !== rest.provider),
    ];
  }

  /**
   * A new payment for the rest of the order of `paymentId`, into the same wallet, with `providerId`,
   * recorded and sent to its checkout as Process Payment does. Only for the holder of the payment's
   * key, with the form's token derived from it; one of the payment's SECOND_CHANCES_MAX is taken
   * before the new payment is recorded, and the order's ORDER_ATTEMPTS_MAX counts it.
   */
  async take(paymentId: string, providerId: string, customerIp: string, credentials: PaymentCredentials): Promise<SecondChanceOutcome> {
    const payment = await this.deps.payments.findCheckout(paymentId);
    if (!payment) return refused('no_payment');
    if (!secondChanceFormTokenMatches(credentials.formToken ?? '', credentials.keys, payment.keyHash, paymentId)) {
      return refused('key_required');
    }
    const rest = this.missing(await this.deps.receipts.findOrder(payment.walletId));
    if (!rest) return refused('closed');
    const chosen = this.offers(rest).find((option) => option.provider.id === providerId);
    if (!chosen) return refused('provider_not_accepted');
    if (!(await this.deps.payments.claimSecondChance(paymentId, this.deps.secondChances))) return refused('exhausted');
    return startOnSameOrder(this.deps.processPayment, payment, chosen, customerIp, {
      expectation: { ...rest.expectation, windowEndsAt: orderWindowEndsAt(new Date(), this.deps.windowHours), completes: rest.completes },
    });
  }
}
