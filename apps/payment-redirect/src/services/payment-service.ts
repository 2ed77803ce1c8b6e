import { randomUUID } from 'node:crypto';
import { GatewayError, parsePaymentRequest, type PaymentRequestQuery, type SealingKeyRing } from '@gateway/domain';
import { currentRatesOrDeferredError, type RateReader } from '@gateway/rates';
import { createBatcher, type NewPayment, type PaymentRepository } from '@gateway/db';
import type { ProviderAdapter } from '@gateway/providers';

export interface StartedPayment {
  paymentId: string;
  provider: string;
  checkoutUrl: string;
}

export interface PaymentServiceDeps {
  payments: PaymentRepository;
  adapters: ReadonlyMap<string, ProviderAdapter>;
  keys: SealingKeyRing;
  rates: RateReader;
  /** {payment_url}: the receipt page of each payment is under it. */
  publicUrl: string;
}

// Concurrent requests share statements: a statement costs PostgreSQL far more than a row.
const BATCHING = { maxBatchSize: 64, maxInFlight: 4, lingerMs: 1 };

/** Process Payment (spec 4.2): validates the order, records it, and builds the provider checkout. */
export class PaymentService {
  private readonly recordPayment: (payment: NewPayment) => Promise<boolean>;

  constructor(private readonly deps: PaymentServiceDeps) {
    this.recordPayment = createBatcher((payments: NewPayment[]) => deps.payments.insertManyForWallets(payments), BATCHING);
  }

  async start(query: PaymentRequestQuery): Promise<StartedPayment> {
    // Rates that cannot be used answer 503 only where a rate is needed: a USD order still goes through.
    const rates = await currentRatesOrDeferredError(this.deps.rates);
    const request = parsePaymentRequest(query, { keys: this.deps.keys, rates });
    const adapter = this.deps.adapters.get(request.provider.id);
    if (!adapter) throw new Error(`no adapter for provider ${request.provider.id}`);
    const paymentId = randomUUID();
    const checkoutUrl = adapter.buildCheckoutUrl({
      provider: request.provider,
      paymentId,
      walletAddress: request.temporaryAddress,
      amount: request.amount.text,
      currency: request.currency,
      email: request.email,
      returnUrl: receiptUrl(this.deps.publicUrl, paymentId),
    });
    const recorded = await this.recordPayment({
      id: paymentId,
      polygonAddress: request.temporaryAddress,
      amount: request.amount.text,
      currency: request.currency,
      provider: request.provider.id,
      email: request.email,
      checkoutUrl,
    });
    if (!recorded) {
      throw new GatewayError('unknown_wallet', 'address opens, but no wallet of this gateway has it; call Create Wallet again', 'address');
    }
    return { paymentId, provider: request.provider.id, checkoutUrl };
  }
}

/** The customer's receipt page, every provider's return URL. */
export function receiptUrl(publicUrl: string, paymentId: string): string {
  return `${publicUrl}/payment/${paymentId}`;
}
