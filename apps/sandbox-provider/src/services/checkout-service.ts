import { maskEmail } from '@gateway/domain';
import type { CheckoutOrder } from './checkout-link';
import { DECLINE_MESSAGES, REFUSAL_REPORT, SHORT_DELIVERY_PERCENT, type CardOutcome, type RefusedCardOutcome } from './card-check';
import type { GatewayNotifier } from './gateway-notifier';
import type { Delivery, OrderPayer } from './order-payer';
import type { SandboxOrderRepository, SandboxOrderRow } from './order-repository';

export interface CheckoutLog {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface CheckoutServiceDeps {
  orders: SandboxOrderRepository;
  payer: OrderPayer;
  notifier: GatewayNotifier;
  log: CheckoutLog;
}

/** The provider's own reference for an order, as a real on-ramp would give one. */
export function sandboxOrderId(paymentId: string): string {
  return `sbx_${paymentId.replace(/-/g, '').slice(0, 12)}`;
}

/** What the simulated provider does with an accepted or refused card. */
export class CheckoutService {
  constructor(private readonly deps: CheckoutServiceDeps) {}

  findOrder(paymentId: string): Promise<SandboxOrderRow | undefined> {
    return this.deps.orders.find(paymentId);
  }

  /**
   * An approved card: the order is recorded (once, whoever posts first) and its USDC sent; all of
   * it, or for the `short` test card a part of it, as a provider that delivers less than it should.
   */
  async pay(order: CheckoutOrder, outcome: Extract<CardOutcome, 'approved' | 'short'> = 'approved'): Promise<Delivery> {
    const usdcAmount = outcome === 'short' ? (order.quote.netUsdc * SHORT_DELIVERY_PERCENT) / 100n : order.quote.netUsdc;
    const claimed = await this.deps.orders.claim({
      paymentId: order.paymentId,
      provider: order.provider.id,
      walletAddress: order.walletAddress,
      fiatAmount: order.amount.text,
      currency: order.currency,
      usdcAmount,
    });
    if (claimed) {
      this.deps.log.info(
        { paymentId: order.paymentId, provider: order.provider.id, usdc: usdcAmount.toString(), outcome, email: maskEmail(order.email) },
        'card approved; sending test USDC',
      );
    }
    return this.complete(order.paymentId, order.provider.id);
  }

  /** Finishes an order accepted earlier (a replayed post, or one interrupted by a crash). */
  async complete(paymentId: string, provider: string): Promise<Delivery> {
    const delivery = await this.deps.payer.deliver(paymentId);
    if (delivery.justPaid) {
      this.deps.log.info({ paymentId, txHash: delivery.txHash }, 'order paid');
      this.deps.notifier.notify({
        provider,
        payment_id: paymentId,
        status: 'paid',
        order_id: sandboxOrderId(paymentId),
        tx_hash: delivery.txHash,
      });
    }
    return delivery;
  }

  /** A refused card: the gateway hears why, in the words the customer saw. */
  decline(order: CheckoutOrder, outcome: RefusedCardOutcome): string {
    const reason = DECLINE_MESSAGES[outcome];
    const { status, declineKind } = REFUSAL_REPORT[outcome];
    this.deps.log.info({ paymentId: order.paymentId, outcome, declineKind }, 'card refused');
    this.deps.notifier.notify({
      provider: order.provider.id,
      payment_id: order.paymentId,
      status,
      order_id: sandboxOrderId(order.paymentId),
      reason,
      decline_kind: declineKind,
    });
    return reason;
  }

  /** At boot: sends again every transfer that was signed but never seen mined. */
  async resumeUnfinished(): Promise<void> {
    for (const order of await this.deps.orders.unfinished()) {
      try {
        await this.complete(order.paymentId, order.provider);
      } catch (error) {
        this.deps.log.error(
          { paymentId: order.paymentId, err: error },
          'could not finish an interrupted order; the next post for it retries',
        );
      }
    }
  }
}
