import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { GatewayError, parsePaymentRequest, type PaymentRequestQuery, type SealingKeyRing } from '@gateway/domain';
import { currentRatesOrDeferredError, type RateReader } from '@gateway/rates';
import { createBatcher, type NewPayment, type PaymentRepository, type RecordedCheckout } from '@gateway/db';
import { ProviderCheckoutError, type CreatedCheckout, type ProviderAdapter, type ProviderRegistry } from '@gateway/providers';

export interface StartedPayment {
  paymentId: string;
  provider: string;
  checkoutUrl: string;
}

export interface PaymentServiceDeps {
  payments: PaymentRepository;
  providers: ProviderRegistry;
  keys: SealingKeyRing;
  rates: RateReader;
  /** {payment_url}: the receipt page of each payment is under it. */
  publicUrl: string;
  /** How long a provider may take to give a checkout, retries included. */
  checkoutTimeoutMs: number;
  log: FastifyBaseLogger;
  /** Counts checkouts by provider and outcome (created, refused, unavailable). */
  countCheckout(provider: string, outcome: 'created' | 'refused' | 'unavailable'): void;
}

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
  private readonly recordPayment: (payment: NewPayment) => Promise<boolean>;
  private readonly recordCheckout: (checkout: RecordedCheckout) => Promise<boolean>;

  constructor(private readonly deps: PaymentServiceDeps) {
    this.recordPayment = createBatcher((payments: NewPayment[]) => deps.payments.insertManyForWallets(payments), BATCHING);
    this.recordCheckout = createBatcher((checkouts: RecordedCheckout[]) => deps.payments.recordCheckouts(checkouts), BATCHING);
  }

  async start(query: PaymentRequestQuery, customerIp: string): Promise<StartedPayment> {
    // Rates that cannot be used answer 503 only where a rate is needed: a USD order still goes through.
    const rates = await currentRatesOrDeferredError(this.deps.rates);
    const request = parsePaymentRequest(query, { keys: this.deps.keys, rates, providers: this.deps.providers });
    const adapter = this.deps.providers.adapter(request.provider.id);
    if (!adapter) throw new Error(`provider ${request.provider.id} is offered without an adapter`);
    const paymentId = randomUUID();
    const recorded = await this.recordPayment({
      id: paymentId,
      polygonAddress: request.temporaryAddress,
      amount: request.amount.text,
      currency: request.currency,
      provider: request.provider.id,
      email: request.email,
    });
    if (!recorded) {
      throw new GatewayError('unknown_wallet', 'address opens, but no wallet of this gateway has it; call Create Wallet again', 'address');
    }
    const checkout = await this.createCheckout(adapter, paymentId, {
      paymentId,
      walletAddress: request.temporaryAddress,
      amount: request.amount.text,
      currency: request.currency,
      email: request.email,
      returnUrl: receiptUrl(this.deps.publicUrl, paymentId),
      customerIp,
    });
    if (
      !(await this.recordCheckout({
        id: paymentId,
        checkoutUrl: checkout.url,
        ...(checkout.providerReference ? { providerReference: checkout.providerReference } : {}),
      }))
    ) {
      throw new Error(`payment ${paymentId} left 'creating' before its checkout was recorded`);
    }
    this.deps.countCheckout(request.provider.id, 'created');
    return { paymentId, provider: request.provider.id, checkoutUrl: checkout.url };
  }

  private async createCheckout(
    adapter: ProviderAdapter,
    paymentId: string,
    order: Parameters<ProviderAdapter['createCheckout']>[0],
  ): Promise<CreatedCheckout> {
    const provider = adapter.descriptor;
    try {
      const checkout = await adapter.createCheckout(order, {
        idempotencyKey: paymentId,
        signal: AbortSignal.timeout(this.deps.checkoutTimeoutMs),
      });
      checkUrl(checkout.url, adapter);
      return checkout;
    } catch (error) {
      // An adapter fault is the provider integration failing this order: the customer still gets the page, the operator the log.
      const kind = error instanceof ProviderCheckoutError ? error.kind : 'refused';
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof ProviderCheckoutError)
        this.deps.log.warn({ paymentId, provider: provider.id, kind, reason }, 'provider gave no checkout');
      else this.deps.log.error({ paymentId, provider: provider.id, err: error }, 'provider adapter failed');
      this.deps.countCheckout(provider.id, kind);
      await this.deps.payments.failCheckout(paymentId, `${kind}: ${reason}`).catch((failure: unknown) => {
        // The row stays 'creating', which says the same: no checkout was given.
        this.deps.log.error({ paymentId, err: failure }, 'could not mark the payment checkout_failed');
      });
      throw new CheckoutFailedError(paymentId, provider.displayName, kind);
    }
  }
}

/** A checkout URL an adapter returns must be one a browser can be sent to: https (http only for the local sandbox). */
function checkUrl(url: string, adapter: ProviderAdapter): void {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && !(adapter.mode === 'sandbox' && parsed.protocol === 'http:')) {
    throw new ProviderCheckoutError(`checkout URL is not https (${parsed.protocol})`, 'refused');
  }
}

/** The customer's receipt page, every provider's return URL. */
export function receiptUrl(publicUrl: string, paymentId: string): string {
  return `${publicUrl}/payment/${paymentId}`;
}
