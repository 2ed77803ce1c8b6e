import type { FastifyBaseLogger } from 'fastify';
import { GatewayError } from '@gateway/domain';
import type { RecordedCheckout } from '@gateway/db/payment-redirect';
import type { ProviderCircuitBreaker } from '../checkout-signals/provider-circuit-breaker';
import {
  checkoutDeadlineMs,
  ProviderCheckoutError,
  type CheckoutOrder,
  type CheckoutTarget,
  type CreatedCheckout,
  type ProviderAdapter,
  type ProviderFailureKind,
} from '@gateway/providers';

/**
 * Why a checkout failed: the provider's failure, a checkout URL that is not https, the adapter itself
 * failing, or the provider's circuit breaker letting no call through (circuit_open).
 */
export type CheckoutFailureKind = ProviderFailureKind | 'adapter_error' | 'circuit_open';

/** Counts checkouts by provider and outcome (created, once recorded; refused, unavailable), and a failed one's kind. */
type CountCheckout = (provider: string, outcome: 'created' | 'refused' | 'unavailable', failure?: CheckoutFailureKind) => void;

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

export interface ProviderCheckoutDeps {
  /** {payment_url}: the receipt page of each payment is under it. */
  publicUrl: string;
  /** The operator's cap on every provider's checkout deadline (CHECKOUT_TIMEOUT_MS); each provider's own applies below it. */
  checkoutTimeoutMs?: number;
  /** Marks a payment whose first checkout failed 'checkout_failed', with the reason. */
  failCheckout(paymentId: string, error: string): Promise<unknown>;
  countCheckout: CountCheckout;
  /** The providers' circuit breakers: session checkouts ask it first and tell it how they ended (url flows make no call). */
  circuit: Pick<ProviderCircuitBreaker, 'admit' | 'record'>;
  log: FastifyBaseLogger;
}

/** What a payment asks its provider's checkout for: the order less what the gateway adds (where the customer comes back to, from where). */
export type PaymentOrder = Omit<CheckoutOrder, 'returnUrl' | 'customerIp'>;

/**
 * Asks a provider for a checkout (Process Payment, the second chance and the customer's link alike):
 * within the provider's deadline, for a browser to be sent to, counted and logged; a failure is a
 * CheckoutFailedError in words the customer can read.
 */
export class ProviderCheckout {
  constructor(private readonly deps: ProviderCheckoutDeps) {}

  /** Counts a checkout of `provider` as created, once it is recorded. */
  created(provider: string): void {
    this.deps.countCheckout(provider, 'created');
  }

  /**
   * `failPayment`: the payment's first checkout, whose failure is recorded on it; a renewal that
   * fails leaves the payment as it was, so its link may try again.
   */
  async create(
    adapter: ProviderAdapter,
    payment: PaymentOrder,
    customerIp: string,
    { idempotencyKey, failPayment }: { idempotencyKey: string; failPayment: boolean },
  ): Promise<CreatedCheckout> {
    const provider = adapter.descriptor;
    const { paymentId } = payment;
    const order: CheckoutOrder = { ...payment, returnUrl: receiptUrl(this.deps.publicUrl, paymentId), customerIp };
    // Every call of the checkout (token + session, quote + payment) and their retries fit this one deadline.
    const deadlineMs = Math.min(checkoutDeadlineMs(provider), this.deps.checkoutTimeoutMs ?? Number.POSITIVE_INFINITY);
    // Only a session checkout calls the provider: a URL (signed or not) is built here and never fails at the provider.
    const admission = provider.flow === 'session' ? await this.deps.circuit.admit(provider.id) : undefined;
    if (admission?.admit === false) {
      return this.fail(
        payment,
        provider,
        failPayment,
        new ProviderCheckoutError('its circuit breaker is open', 'unavailable'),
        'circuit_open',
      );
    }
    try {
      const checkout = await adapter.createCheckout(order, { idempotencyKey, signal: AbortSignal.timeout(deadlineMs) });
      checkTarget(checkout, adapter);
      if (admission) await this.deps.circuit.record(admission.ticket, 'success');
      return checkout;
    } catch (error) {
      if (admission) await this.deps.circuit.record(admission.ticket, circuitOutcome(error));
      return this.fail(payment, provider, failPayment, error);
    }
  }

  /** Counts, logs and records (on the payment's first checkout) a checkout the provider did not give; throws it in the customer's words. */
  private async fail(
    { paymentId }: PaymentOrder,
    provider: ProviderAdapter['descriptor'],
    failPayment: boolean,
    error: unknown,
    circuitFailure?: 'circuit_open',
  ): Promise<never> {
    // An adapter fault is the provider integration failing this order: the customer still gets the page, the operator the log.
    const kind = error instanceof ProviderCheckoutError ? error.kind : 'refused';
    const failure = circuitFailure ?? (error instanceof ProviderCheckoutError ? error.failure : 'adapter_error');
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof ProviderCheckoutError)
      this.deps.log.warn({ paymentId, provider: provider.id, kind, failure, reason }, 'provider gave no checkout');
    else this.deps.log.error({ paymentId, provider: provider.id, err: error }, 'provider adapter failed');
    this.deps.countCheckout(provider.id, kind, failure);
    if (failPayment) {
      await this.deps.failCheckout(paymentId, `${kind}: ${reason}`).catch((failure: unknown) => {
        // The row stays 'creating', which says the same: no checkout was given.
        this.deps.log.error({ paymentId, err: failure }, 'could not mark the payment checkout_failed');
      });
    }
    throw new CheckoutFailedError(paymentId, provider.displayName, kind);
  }
}

/** A failed checkout call as its circuit counts it: the deadline passing is a timeout, anything else an error. */
function circuitOutcome(error: unknown): 'timeout' | 'error' {
  return error instanceof ProviderCheckoutError && error.failure === 'timeout' ? 'timeout' : 'error';
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
export function recordedCheckout(checkout: CreatedCheckout): Omit<RecordedCheckout, 'id' | 'served'> {
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
