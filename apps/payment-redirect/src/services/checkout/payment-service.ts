import { randomUUID } from 'node:crypto';
import {
  attemptExpectation,
  checkoutAmountOf,
  feePayerOf,
  formatMinorUnits,
  formatRate,
  issuePaymentKey,
  orderAttemptsExhaustedError,
  parsePaymentRequest,
  type PaymentRequest,
  type PaymentRequestQuery,
  type CustomerLocation,
  type ExactRate,
  type SealingKeyRing,
  unknownWalletError,
} from '@gateway/domain';
import { currentRatesOrDeferredError, type RateReader } from '@gateway/rates';
import {
  createBatcher,
  type NewPayment,
  type PaymentRecording,
  type PaymentRepository,
  type RecordedCheckout,
  type RecordedExpectation,
  type WalletOrderTerms,
} from '@gateway/db/payment-redirect';
import type { CreatedCheckout, ProviderAdapter, ProviderRegistry } from '@gateway/providers';
import type { QuoteService } from '../quotes/quote-service';
import { checkoutLink, recordedCheckout, type ProviderCheckout } from './provider-checkout';

export interface StartedPayment {
  paymentId: string;
  provider: string;
  checkout: CreatedCheckout;
  /** The customer's link to it, which opens a fresh checkout once this one is no longer usable; it carries the key. */
  link: string;
  /** The payment's key, for the browser that started it alone (a cookie scoped to the payment). */
  key: string;
}

/**
 * Who the checkout is handed to: a browser gets a form checkout as a page; a JSON client gets the
 * customer's link for it; `link`: the browser is sent to the customer's link, which hands it out.
 */
export type CheckoutAudience = 'browser' | 'json' | 'link';

export interface PaymentServiceDeps {
  payments: Pick<PaymentRepository, 'insertManyForWallets' | 'recordCheckouts'>;
  providers: ProviderRegistry;
  keys: SealingKeyRing;
  rates: RateReader;
  /** The providers' quotes the checkout page shows: a fresh one is what this attempt expects. */
  quotes: Pick<QuoteService, 'providerQuote'>;
  checkouts: ProviderCheckout;
  /** {payment_url}: the customer's link to each payment is under it. */
  publicUrl: string;
  /** ORDER_ATTEMPTS_MAX. */
  orderAttempts: number;
  /** Who pays an order's fees: its wallet's customer_pays_fee, else this operator's (CUSTOMER_PAYS_FEES); the wallet's fee terms. */
  wallets: { orderTermsOf(polygonAddress: string): Promise<WalletOrderTerms | undefined> };
  /**
   * How each attempt's checkout and expectation are made: CUSTOMER_PAYS_FEES, ORDER_TOLERANCE_BPS (unset: from the provider's
   * fee range) and ORDER_WINDOW_HOURS.
   */
  orders: { customerPaysFees: boolean; toleranceBps?: number; windowHours: number };
  /** Status look-ups: when a new payment's provider is first asked (recorded with its checkout), and its job added (never throws). */
  statusLookUps?: {
    firstLookUpAt(provider: string): Date | undefined;
    track(paymentId: string, provider: string, options: { scheduled: boolean }): Promise<void>;
  };
}

// A quote is worth a moment of the customer's wait, not more: past it the estimate stands (and the
// quote, when it comes, is cached for the next customer of its band).
const QUOTE_DEADLINE_MS = 1_500;

// Concurrent requests share statements: a statement costs PostgreSQL far more than a row.
const BATCHING = { maxBatchSize: 64, maxInFlight: 4, lingerMs: 1 };

/**
 * Process Payment (spec 4.2): validates the order, records the payment, then asks the provider
 * for the checkout with the payment id as idempotency key, and stores what it gave. A payment is
 * never half-recorded: it is 'redirected' with its URL, or 'checkout_failed' with the reason.
 */
export class PaymentService {
  private readonly recordPayment: (payment: NewPayment) => Promise<PaymentRecording>;
  private readonly recordCheckout: (checkout: RecordedCheckout) => Promise<boolean>;

  /** Work left running after an answer (status look-ups' jobs being added): waited for before Redis closes. */
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: PaymentServiceDeps) {
    this.recordPayment = createBatcher(
      (payments: NewPayment[]) => deps.payments.insertManyForWallets(payments, deps.orderAttempts),
      BATCHING,
    );
    this.recordCheckout = createBatcher((checkouts: RecordedCheckout[]) => deps.payments.recordCheckouts(checkouts), BATCHING);
  }

  async start(
    query: PaymentRequestQuery,
    customerIp: string,
    audience: CheckoutAudience = 'browser',
    location?: CustomerLocation,
  ): Promise<StartedPayment> {
    // Rates that cannot be used answer 503 only where a rate is needed: a USD order still goes through.
    const rates = await currentRatesOrDeferredError(this.deps.rates);
    const request = parsePaymentRequest(query, { keys: this.deps.keys, rates, providers: this.deps.providers });
    return this.begin(request, customerIp, audience, location ? { location } : {});
  }

  /**
   * Records the payment with what it should bring, then asks its provider for the checkout and
   * records that: Process Payment and the second chance alike. `expectation`: the order's own, for
   * an attempt that pays only part of it (the rest of an underpaid order is judged as the whole order).
   * `location`: where the customer is, when known (a quote priced per location is the one the page showed).
   */
  async begin(
    request: PaymentRequest,
    customerIp: string,
    audience: CheckoutAudience,
    options: { expectation?: RecordedExpectation; location?: CustomerLocation } = {},
  ): Promise<StartedPayment> {
    const adapter = this.deps.providers.adapter(request.provider.id);
    if (!adapter) throw new Error(`provider ${request.provider.id} is offered without an adapter`);
    const paymentId = randomUUID();
    const { key, hash } = issuePaymentKey();
    // A rest payment (its order's expectation given) pays a fiat amount, fees inside.
    const { expectation, checkoutUsdc } = options.expectation
      ? { expectation: options.expectation, checkoutUsdc: undefined }
      : await this.expectationOf(request, adapter, options.location);
    const recording = await this.recordPayment({
      id: paymentId,
      polygonAddress: request.temporaryAddress,
      amount: request.amount.text,
      currency: request.currency,
      provider: request.provider.id,
      email: request.email,
      keyHash: hash,
      expectation,
      ...(checkoutUsdc !== undefined ? { checkoutUsdc } : {}),
    });
    if (recording === 'unknown_wallet') throw unknownWalletError();
    if (recording === 'attempts_exhausted') throw orderAttemptsExhaustedError(this.deps.orderAttempts);
    const checkout = await this.deps.checkouts.create(
      adapter,
      {
        paymentId,
        walletAddress: request.temporaryAddress,
        amount: request.amount.text,
        currency: request.currency,
        email: request.email,
        ...(checkoutUsdc !== undefined ? { usdc: checkoutUsdc } : {}),
      },
      customerIp,
      { idempotencyKey: paymentId, failPayment: true },
    );
    // A JSON client gets a form checkout as the customer's link, which hands the form out when opened.
    const served = audience === 'browser' || (audience === 'json' && checkout.kind === 'redirect');
    const statusPollDueAt = this.deps.statusLookUps?.firstLookUpAt(request.provider.id);
    const record = { id: paymentId, ...recordedCheckout(checkout), served, ...(statusPollDueAt ? { statusPollDueAt } : {}) };
    if (!(await this.recordCheckout(record))) {
      throw new Error(`payment ${paymentId} left 'creating' before its checkout was recorded`);
    }
    this.deps.checkouts.created(request.provider.id);
    // The look-up's job is added behind the answer: the schedule is recorded with the checkout (the
    // reconciler makes the job from it if this add is lost), and a failure is logged, never the customer's.
    if (statusPollDueAt) this.behind(this.deps.statusLookUps?.track(paymentId, request.provider.id, { scheduled: true }));
    return { paymentId, provider: request.provider.id, checkout, link: checkoutLink(this.deps.publicUrl, paymentId, key), key };
  }

  /**
   * What this attempt should bring: its order in USD at the rate of the moment (a USD order needs
   * none: its rates may even be unavailable), and what its provider should deliver of it: its quote
   * where the adapter has one and it answers in time, else the documented fees of the adapter that
   * takes it (the sandbox's own where it stands in for a provider), marked as an estimate. Fees on top
   * (the customer pays them and the provider sells a fixed USDC amount): the USDC that leaves the
   * shop the order's value after its wallet's fees, which the checkout then asks for (checkoutUsdc).
   */
  private async expectationOf(
    request: PaymentRequest,
    adapter: ProviderAdapter,
    location: CustomerLocation | undefined,
  ): Promise<{ expectation: RecordedExpectation; checkoutUsdc: bigint | undefined }> {
    const now = new Date();
    const terms = await this.deps.wallets.orderTermsOf(request.temporaryAddress);
    const payer = feePayerOf(this.deps.orders.customerPaysFees, terms?.customerPaysFee);
    const feesOnTop = terms !== undefined && payer === 'customer' && adapter.descriptor.fixedUsdc !== undefined;
    const [priced, quotedUsdc] = await Promise.all([
      request.currency === 'USD' ? { source: 'usd', asOf: now, rate: undefined } : this.rateOf(request.currency),
      // Fees on top fix the USDC: no quote is needed for what the order should bring.
      feesOnTop ? undefined : this.quotedUsdc(request, location),
    ]);
    let checkoutUsdc: bigint | undefined;
    const fixedUsdcFor = (usdCents: bigint): bigint | undefined => {
      if (!terms) return undefined;
      const amount = checkoutAmountOf({ payer, sellsFixedUsdc: feesOnTop, usdCents, terms });
      checkoutUsdc = amount.feesOnTop ? amount.usdc : undefined;
      return checkoutUsdc;
    };
    const expected = attemptExpectation({
      amount: request.amount,
      currency: request.currency,
      ...(priced.rate ? { rate: priced.rate } : {}),
      fees: adapter.descriptor.fees,
      ...(quotedUsdc !== undefined ? { quotedUsdc } : {}),
      ...(this.deps.orders.toleranceBps !== undefined ? { operatorToleranceBps: this.deps.orders.toleranceBps } : {}),
      now,
      windowHours: this.deps.orders.windowHours,
      fixedUsdcFor,
    });
    const expectation: RecordedExpectation = {
      amountUsd: formatMinorUnits(expected.usdCents),
      usdRate: priced.rate ? formatRate(priced.rate) : '1',
      usdRateSource: priced.source,
      usdRateAsOf: priced.asOf,
      expectedUsdc: expected.usdc,
      basis: expected.basis,
      toleranceBps: expected.toleranceBps,
      windowEndsAt: expected.windowEndsAt,
    };
    return { expectation, checkoutUsdc };
  }

  /**
   * The USDC the provider's own quote says this order delivers: its band's cached quote (the one the
   * checkout page shows) when fresh, else asked now within QUOTE_DEADLINE_MS; otherwise nothing, and
   * the expectation is an estimate: a quote refines the figure, it never holds a customer back.
   */
  private async quotedUsdc(request: PaymentRequest, location: CustomerLocation | undefined): Promise<bigint | undefined> {
    const quote = await this.deps.quotes.providerQuote(
      { provider: request.provider.id, amount: request.amount, currency: request.currency, ...(location ? { location } : {}) },
      { waitMs: QUOTE_DEADLINE_MS },
    );
    return quote?.usdc;
  }

  private async rateOf(currency: PaymentRequest['currency']): Promise<{ source: string; asOf: Date; rate: ExactRate }> {
    const snapshot = await this.deps.rates.current();
    const rate = snapshot.rates.get(currency);
    // parsePaymentRequest has checked the currency against these rates already.
    if (!rate) throw new Error(`no rate for ${currency} after the order was checked against the rates`);
    return { source: snapshot.source, asOf: snapshot.asOf, rate };
  }

  /** Resolves once the work left running after the answers given so far is done (before Redis closes). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private behind(work: Promise<void> | undefined): void {
    if (!work) return;
    const tracked: Promise<void> = work.finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }
}
