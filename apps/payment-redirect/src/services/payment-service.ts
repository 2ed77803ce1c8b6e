import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import {
  checkoutLinkAction,
  GatewayError,
  issuePaymentKey,
  matchingPaymentKey,
  orderAttemptsExhaustedError,
  secondChanceFormTokenMatches,
  parseCurrency,
  parseFiatAmount,
  parsePaymentRequest,
  providerOptions,
  secondChanceOpen,
  secondChanceProviders,
  type AvailableProviderOption,
  type CurrencyCode,
  type EvmAddress,
  type PaymentRequest,
  type PaymentRequestQuery,
  type ProviderPaymentStatus,
  type RateTable,
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
} from '@gateway/db/payment-redirect';
import {
  checkoutDeadlineMs,
  ProviderCheckoutError,
  type CheckoutOrder,
  type CheckoutTarget,
  type CreatedCheckout,
  type ProviderAdapter,
  type ProviderFailureKind,
  type ProviderRegistry,
} from '@gateway/providers';

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

export class RetryRefusedError extends Error {
  constructor(readonly refusal: RetryRefusal) {
    super(`second chance refused: ${refusal}`);
  }
}

/** What the customer's link opens, for the holder of the payment's `key`. */
export type OpenedCheckout = (
  | { kind: 'checkout'; paymentId: string; providerId: string; target: CheckoutTarget; amount: string; currency: string }
  /** The provider has an order for this payment already, or USDC arrived: the receipt page. */
  | { kind: 'receipt'; paymentId: string }
  /** The payment's first checkout is still being created (a concurrent Process Payment). */
  | { kind: 'wait'; paymentId: string }
) & { key: string };

export interface PaymentServiceDeps {
  payments: PaymentRepository;
  providers: ProviderRegistry;
  keys: SealingKeyRing;
  rates: RateReader;
  /** {payment_url}: the receipt page of each payment is under it. */
  publicUrl: string;
  /** The operator's cap on every provider's checkout deadline (CHECKOUT_TIMEOUT_MS); each provider's own applies below it. */
  checkoutTimeoutMs?: number;
  /** ORDER_ATTEMPTS_MAX and SECOND_CHANCES_MAX. */
  limits: { orderAttempts: number; secondChances: number };
  log: FastifyBaseLogger;
  /** Counts checkouts by provider and outcome (created, refused, unavailable), and a failed one's kind. */
  countCheckout(provider: string, outcome: 'created' | 'refused' | 'unavailable', failure?: CheckoutFailureKind): void;
  /** Status look-ups: when a new payment's provider is first asked (recorded with its checkout), and its job added (never throws). */
  statusLookUps?: {
    firstLookUpAt(provider: string): Date | undefined;
    track(paymentId: string, provider: string, options: { scheduled: boolean }): Promise<void>;
  };
}

/** Why a checkout failed: the provider's failure, a checkout URL that is not https, or the adapter itself failing. */
export type CheckoutFailureKind = ProviderFailureKind | 'adapter_error';

/** The provider gave no checkout: the customer is told in words, and offered another provider. */
export class CheckoutFailedError extends GatewayError {
  constructor(
    readonly paymentId: string,
    readonly providerName: string,
    readonly kind: 'refused' | 'unavailable',
  ) {
    super(
      kind === 'unavailable' ? 'provider_unavailable' : 'provider_error',
      kind === 'unavailable'
        ? `${providerName} did not answer in time; try again in a moment, or choose another provider`
        : `${providerName} could not start the checkout for this order; choose another provider`,
      'provider',
      kind === 'unavailable' ? { retryAfterSeconds: 5 } : {},
    );
  }
}

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
      (payments: NewPayment[]) => deps.payments.insertManyForWallets(payments, deps.limits.orderAttempts),
      BATCHING,
    );
    this.recordCheckout = createBatcher((checkouts: RecordedCheckout[]) => deps.payments.recordCheckouts(checkouts), BATCHING);
  }

  async start(query: PaymentRequestQuery, customerIp: string, audience: CheckoutAudience = 'browser'): Promise<StartedPayment> {
    // Rates that cannot be used answer 503 only where a rate is needed: a USD order still goes through.
    const rates = await currentRatesOrDeferredError(this.deps.rates);
    const request = parsePaymentRequest(query, { keys: this.deps.keys, rates, providers: this.deps.providers });
    return this.begin(request, customerIp, audience);
  }

  /**
   * The providers a payment the provider gave up on may be paid with instead, each with the charge
   * it would be asked for (the hosted checkout's rules); empty when the second chance is not open.
   */
  async secondChanceFor(payment: {
    provider: string;
    amount: string;
    currency: string;
    providerStatus: ProviderPaymentStatus | null;
    usdcArrived: boolean;
  }): Promise<AvailableProviderOption[]> {
    if (!secondChanceOpen(payment.providerStatus, payment.usdcArrived)) return [];
    let rates: RateTable | undefined;
    try {
      rates = (await this.deps.rates.current()).rates;
    } catch {
      // Without rates providerOptions still offers what needs none (every provider for a USD order).
      rates = undefined;
    }
    const options = providerOptions(parseFiatAmount(payment.amount), parseCurrency(payment.currency), rates, this.deps.providers.offered);
    return secondChanceProviders(options, payment.provider);
  }

  /**
   * The second chance (`POST /payment/<id>/retry`): a new payment for the same wallet, order and
   * e-mail with `providerId`, recorded and sent to its checkout exactly as Process Payment does.
   * Only for the holder of the payment's key, with the form's token derived from it; one of the
   * payment's SECOND_CHANCES_MAX is taken before the new payment is recorded.
   */
  async retry(paymentId: string, providerId: string, customerIp: string, credentials: PaymentCredentials): Promise<StartedPayment> {
    const payment = await this.deps.payments.findCheckout(paymentId);
    if (!payment) throw new RetryRefusedError('no_payment');
    if (!secondChanceFormTokenMatches(credentials.formToken ?? '', credentials.keys, payment.keyHash, paymentId)) {
      throw new RetryRefusedError('key_required');
    }
    if (!secondChanceOpen(payment.providerStatus, payment.hasDeposit)) throw new RetryRefusedError('closed');
    const choices = await this.secondChanceFor({ ...payment, usdcArrived: payment.hasDeposit });
    const chosen = choices.find((option) => option.provider.id === providerId);
    if (!chosen) throw new RetryRefusedError('provider_not_accepted');
    if (!(await this.deps.payments.claimSecondChance(paymentId, this.deps.limits.secondChances))) {
      throw new RetryRefusedError('exhausted');
    }
    return this.begin(
      {
        temporaryAddress: payment.polygonAddress as EvmAddress,
        amount: chosen.charge.amount,
        currency: chosen.charge.currency,
        provider: chosen.provider,
        email: payment.email,
      },
      customerIp,
      'link',
    ).catch((error: unknown) => {
      if (error instanceof GatewayError && error.code === 'order_attempts_exhausted') throw new RetryRefusedError('exhausted');
      throw error;
    });
  }

  /** Records the payment, then asks its provider for the checkout and records that: Process Payment and the second chance alike. */
  private async begin(request: PaymentRequest, customerIp: string, audience: CheckoutAudience): Promise<StartedPayment> {
    const adapter = this.deps.providers.adapter(request.provider.id);
    if (!adapter) throw new Error(`provider ${request.provider.id} is offered without an adapter`);
    const paymentId = randomUUID();
    const { key, hash } = issuePaymentKey();
    const recording = await this.recordPayment({
      id: paymentId,
      polygonAddress: request.temporaryAddress,
      amount: request.amount.text,
      currency: request.currency,
      provider: request.provider.id,
      email: request.email,
      keyHash: hash,
    });
    if (recording === 'unknown_wallet') throw unknownWalletError();
    if (recording === 'attempts_exhausted') throw orderAttemptsExhaustedError(this.deps.limits.orderAttempts);
    const order: CheckoutOrder = {
      paymentId,
      walletAddress: request.temporaryAddress,
      amount: request.amount.text,
      currency: request.currency,
      email: request.email,
      returnUrl: receiptUrl(this.deps.publicUrl, paymentId),
      customerIp,
    };
    const checkout = await this.createCheckout(adapter, order, paymentId, { failPayment: true });
    // A JSON client gets a form checkout as the customer's link, which hands the form out when opened.
    const served = audience === 'browser' || (audience === 'json' && checkout.kind === 'redirect');
    const statusPollDueAt = this.deps.statusLookUps?.firstLookUpAt(request.provider.id);
    const record = { id: paymentId, ...recordedCheckout(checkout), served, ...(statusPollDueAt ? { statusPollDueAt } : {}) };
    if (!(await this.recordCheckout(record))) {
      throw new Error(`payment ${paymentId} left 'creating' before its checkout was recorded`);
    }
    this.deps.countCheckout(request.provider.id, 'created');
    // The look-up's job is added behind the answer: the schedule is recorded with the checkout (the
    // reconciler makes the job from it if this add is lost), and a failure is logged, never the customer's.
    if (statusPollDueAt) this.behind(this.deps.statusLookUps?.track(paymentId, request.provider.id, { scheduled: true }));
    return { paymentId, provider: request.provider.id, checkout, link: checkoutLink(this.deps.publicUrl, paymentId, key), key };
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

  /**
   * The customer's link (`/payment/<id>/checkout`): the recorded checkout while it is usable (a
   * reload), else a fresh one from the provider (expired, or single use and handed out before),
   * unless the provider already has an order for the payment. Undefined for no such payment;
   * 'key_required' when none of `keys` is the payment's (the checkout carries the customer's e-mail
   * and wallet, and a fresh one is a new order at the provider).
   */
  async open(paymentId: string, customerIp: string, keys: readonly string[]): Promise<OpenedCheckout | 'key_required' | undefined> {
    const payment = await this.deps.payments.findCheckout(paymentId);
    if (!payment) return undefined;
    const key = matchingPaymentKey(keys, payment.keyHash);
    if (!key) return 'key_required';
    const action = checkoutLinkAction(payment, Date.now());
    if (action === 'receipt' || action === 'wait') return { kind: action, paymentId, key };
    const adapter = this.deps.providers.adapter(payment.provider);
    if (action === 'reuse' && payment.checkout) {
      const { checkout } = payment;
      // A single-use checkout goes to one load only; a concurrent load that lost the claim gets a fresh one.
      if (!checkout.singleUse || (await this.deps.payments.claimSingleUse(paymentId, payment.attempts))) {
        const target: CheckoutTarget = checkout.formFields
          ? { kind: 'form', action: checkout.url, fields: checkout.formFields }
          : { kind: 'redirect', url: checkout.url };
        return {
          kind: 'checkout',
          paymentId,
          providerId: payment.provider,
          target,
          amount: payment.amount,
          currency: payment.currency,
          key,
        };
      }
    }
    // The provider is no longer offered (its settings removed): its payments show their receipt.
    if (!adapter) return { kind: 'receipt', paymentId, key };
    const attempt = payment.attempts + 1;
    const order: CheckoutOrder = {
      paymentId,
      walletAddress: payment.polygonAddress as EvmAddress,
      amount: payment.amount,
      currency: payment.currency as CurrencyCode,
      email: payment.email,
      returnUrl: receiptUrl(this.deps.publicUrl, paymentId),
      customerIp,
    };
    const checkout = await this.createCheckout(adapter, order, `${paymentId}:${attempt}`, { failPayment: false });
    // Another load renewed it meanwhile: this fresh checkout is as good, it is just not the one recorded.
    await this.deps.payments.renewCheckout({ id: paymentId, attempt, ...recordedCheckout(checkout), served: true });
    this.deps.countCheckout(payment.provider, 'created');
    return {
      kind: 'checkout',
      paymentId,
      providerId: payment.provider,
      target: checkout,
      amount: payment.amount,
      currency: payment.currency,
      key,
    };
  }

  private async createCheckout(
    adapter: ProviderAdapter,
    order: CheckoutOrder,
    idempotencyKey: string,
    { failPayment }: { failPayment: boolean },
  ): Promise<CreatedCheckout> {
    const provider = adapter.descriptor;
    const paymentId = order.paymentId;
    // Every call of the checkout (token + session, quote + payment) and their retries fit this one deadline.
    const deadlineMs = Math.min(checkoutDeadlineMs(provider), this.deps.checkoutTimeoutMs ?? Number.POSITIVE_INFINITY);
    try {
      const checkout = await adapter.createCheckout(order, { idempotencyKey, signal: AbortSignal.timeout(deadlineMs) });
      checkTarget(checkout, adapter);
      return checkout;
    } catch (error) {
      // An adapter fault is the provider integration failing this order: the customer still gets the page, the operator the log.
      const kind = error instanceof ProviderCheckoutError ? error.kind : 'refused';
      const failure = error instanceof ProviderCheckoutError ? error.failure : 'adapter_error';
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof ProviderCheckoutError)
        this.deps.log.warn({ paymentId, provider: provider.id, kind, failure, reason }, 'provider gave no checkout');
      else this.deps.log.error({ paymentId, provider: provider.id, err: error }, 'provider adapter failed');
      this.deps.countCheckout(provider.id, kind, failure);
      // A renewal that fails leaves the payment as it was: its link may try again.
      if (failPayment) {
        await this.deps.payments.failCheckout(paymentId, `${kind}: ${reason}`).catch((failure: unknown) => {
          // The row stays 'creating', which says the same: no checkout was given.
          this.deps.log.error({ paymentId, err: failure }, 'could not mark the payment checkout_failed');
        });
      }
      throw new CheckoutFailedError(paymentId, provider.displayName, kind);
    }
  }
}

/**
 * A checkout an adapter returns must be one a browser can be sent to: https (http only for the
 * local sandbox), for a URL and a form's action alike.
 */
function checkTarget(checkout: CheckoutTarget, adapter: ProviderAdapter): void {
  const parsed = new URL(checkout.kind === 'redirect' ? checkout.url : checkout.action);
  if (parsed.protocol !== 'https:' && !(adapter.mode === 'sandbox' && parsed.protocol === 'http:')) {
    throw new ProviderCheckoutError(
      `checkout ${checkout.kind === 'redirect' ? 'URL' : 'form action'} is not https (${parsed.protocol})`,
      'refused',
      'malformed',
    );
  }
}

/** The columns a checkout is recorded in. */
function recordedCheckout(checkout: CreatedCheckout): Omit<RecordedCheckout, 'id' | 'served'> {
  return {
    checkoutUrl: checkout.kind === 'redirect' ? checkout.url : checkout.action,
    ...(checkout.kind === 'form' ? { formFields: checkout.fields } : {}),
    ...(checkout.expiresAt !== undefined ? { expiresAt: new Date(checkout.expiresAt) } : {}),
    ...(checkout.singleUse ? { singleUse: true } : {}),
    ...(checkout.providerReference ? { providerReference: checkout.providerReference } : {}),
  };
}

/**
 * The customer's link to a payment's checkout (the recorded one while usable, else a fresh one),
 * for a JSON client to hand its customer: it carries the key, which the link then gives the browser.
 */
export function checkoutLink(publicUrl: string, paymentId: string, key: string): string {
  return `${publicUrl}/payment/${paymentId}/checkout?key=${key}`;
}

/** The customer's receipt page, every provider's return URL. */
export function receiptUrl(publicUrl: string, paymentId: string): string {
  return `${publicUrl}/payment/${paymentId}`;
}
