import { checkoutLinkAction, matchingPaymentKey, recoveryLinkTarget, type CurrencyCode, type EvmAddress } from '@gateway/domain';
import type { PaymentRepository } from '@gateway/db/payment-redirect';
import type { CheckoutTarget, ProviderRegistry } from '@gateway/providers';
import { CheckoutFailedError, recordedCheckout, type ProviderCheckout } from './provider-checkout';

/** What the customer's link opens. */
export type OpenedCheckout =
  /** No such payment. */
  | { kind: 'not_found' }
  /** None of the keys presented is the payment's. */
  | { kind: 'key_required' }
  /** The provider gave no fresh checkout: the payment is as it was, and its link may try again. */
  | { kind: 'checkout_failed'; failure: CheckoutFailedError }
  | ((
      | { kind: 'checkout'; paymentId: string; providerId: string; target: CheckoutTarget; amount: string; currency: string }
      /** The provider has an order for this payment already, or USDC arrived: the receipt page. */
      | { kind: 'receipt'; paymentId: string }
      /** The payment's first checkout is still being created (a concurrent Process Payment). */
      | { kind: 'wait'; paymentId: string }
    ) & { key: string });

/** Where a recovery e-mail's link goes, and the key it gives the browser when it carries the payment's. */
export type ResumedPayment = { kind: 'not_found' } | { kind: 'receipt' | 'checkout'; paymentId: string; key: string | undefined };

export interface CheckoutLinkServiceDeps {
  payments: Pick<PaymentRepository, 'findCheckout' | 'claimSingleUse' | 'renewCheckout'>;
  providers: ProviderRegistry;
  checkouts: ProviderCheckout;
}

/**
 * The customer's link (`/payment/<id>/checkout`): the recorded checkout while it is usable (a
 * reload), else a fresh one from the provider (expired, or single use and handed out before),
 * unless the provider already has an order for the payment. Only for the holder of the payment's
 * key: the checkout carries the customer's e-mail and wallet, and a fresh one is a new order at the
 * provider.
 */
export class CheckoutLinkService {
  constructor(private readonly deps: CheckoutLinkServiceDeps) {}

  /**
   * The recovery e-mail's link (`/payment/<id>/resume?key=`): with the key it carries, the browser
   * is given it and goes on to the second chance or the checkout (recoveryLinkTarget); without it,
   * to the receipt anyone with the payment's id may read.
   */
  async resume(paymentId: string, key: string): Promise<ResumedPayment> {
    const payment = await this.deps.payments.findCheckout(paymentId);
    if (!payment) return { kind: 'not_found' };
    const matching = matchingPaymentKey([key], payment.keyHash);
    if (matching === undefined) return { kind: 'receipt', paymentId: payment.id, key: undefined };
    return { kind: recoveryLinkTarget(payment.providerStatus, payment.hasDeposit), paymentId: payment.id, key: matching };
  }

  async open(paymentId: string, customerIp: string, keys: readonly string[]): Promise<OpenedCheckout> {
    const payment = await this.deps.payments.findCheckout(paymentId);
    if (!payment) return { kind: 'not_found' };
    const key = matchingPaymentKey(keys, payment.keyHash);
    if (!key) return { kind: 'key_required' };
    const action = checkoutLinkAction(payment, Date.now());
    if (action === 'receipt' || action === 'wait') return { kind: action, paymentId, key };
    const opened = {
      kind: 'checkout',
      paymentId,
      providerId: payment.provider,
      amount: payment.amount,
      currency: payment.currency,
      key,
    } as const;
    if (action === 'reuse' && payment.checkout) {
      const { checkout } = payment;
      // A single-use checkout goes to one load only; a concurrent load that lost the claim gets a fresh one.
      if (!checkout.singleUse || (await this.deps.payments.claimSingleUse(paymentId, payment.attempts))) {
        const target: CheckoutTarget = checkout.formFields
          ? { kind: 'form', action: checkout.url, fields: checkout.formFields }
          : { kind: 'redirect', url: checkout.url };
        return { ...opened, target };
      }
    }
    const adapter = this.deps.providers.adapter(payment.provider);
    // The provider is no longer offered (its settings removed): its payments show their receipt.
    if (!adapter) return { kind: 'receipt', paymentId, key };
    const attempt = payment.attempts + 1;
    let target: CheckoutTarget;
    try {
      const order = {
        paymentId,
        walletAddress: payment.polygonAddress as EvmAddress,
        amount: payment.amount,
        currency: payment.currency as CurrencyCode,
        email: payment.email,
        // Fees on top: the same USDC amount as the payment's first checkout.
        ...(payment.checkoutUsdc !== undefined ? { usdc: payment.checkoutUsdc } : {}),
      };
      const checkout = await this.deps.checkouts.create(adapter, order, customerIp, {
        idempotencyKey: `${paymentId}:${attempt}`,
        failPayment: false,
      });
      // Another load renewed it meanwhile: this fresh checkout is as good, it is just not the one recorded.
      await this.deps.payments.renewCheckout({ id: paymentId, attempt, ...recordedCheckout(checkout), served: true });
      target = checkout;
    } catch (error) {
      if (error instanceof CheckoutFailedError) return { kind: 'checkout_failed', failure: error };
      throw error;
    }
    this.deps.checkouts.created(payment.provider);
    return { ...opened, target };
  }
}
