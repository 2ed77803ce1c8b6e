import type { DeclineKind, ProviderPaymentStatus } from '@gateway/domain';
import type { ProviderWebhookEvent } from '../../provider-contract';
import { webhookJson } from '../../support/webhook-json';
import { declineKindField, paymentMatch, text } from '../../support/webhook-event';

/**
 * Mercuryo's transaction callbacks (https://widget.docs.mercuryo.io/guide/monitoring/callbacks,
 * statuses at https://widget.docs.mercuryo.io/guide/monitoring/transactions):
 * `{"data": {id, type, status, merchant_transaction_id, payment_method, tx: {id, address}, …}}`.
 * A card purchase is two linked operations: `buy` (the card payment) and, once it is paid,
 * `withdraw` (the crypto sent to the wallet). `buy:paid` is final for the card payment only: the
 * customer is `charged`, and the payment is `paid` when the withdraw is `completed`; a withdraw under
 * way is still `charged`. Sell, deposit and Spend Card events are not about a buy order and are ignored.
 */
const BUY_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  new: 'pending',
  pending: 'pending',
  order_scheduled: 'pending',
  order_verified_not_complete: 'pending',
  // The card was charged; the USDC leaves with the withdraw operation.
  paid: 'charged',
  order_failed: 'declined',
  descriptor_failed: 'declined',
  failed_exchange: 'failed',
  cancelled: 'failed',
};

const WITHDRAW_STATUS: Readonly<Record<string, ProviderPaymentStatus>> = {
  // A withdraw exists only once the card payment succeeded.
  new: 'charged',
  pending: 'charged',
  order_scheduled: 'charged',
  // The crypto left for the wallet.
  completed: 'paid',
  failed: 'failed',
};

/**
 * The card payment's failures as the statuses page describes them: order_failed "Declined by card issuer /
 * acquirer" and descriptor_failed "Card verification check failed" are the card refused; failed_exchange
 * ("Exchange request failed"), cancelled and a failed withdraw name no reason of the customer's: `other`.
 */
const BUY_DECLINE_KIND: Readonly<Record<string, DeclineKind>> = {
  order_failed: 'card_refused',
  descriptor_failed: 'card_refused',
};

const STATUS_BY_TYPE: Readonly<Record<string, Readonly<Record<string, ProviderPaymentStatus>>>> = {
  buy: BUY_STATUS,
  withdraw: WITHDRAW_STATUS,
};

export function mercuryoWebhookEvent(rawBody: Buffer): { kind: 'event'; event: ProviderWebhookEvent } | { kind: 'ignored'; why: string } {
  const body = webhookJson(rawBody, 'Mercuryo callback body') as { data?: unknown; payload?: { data?: unknown } } | null;
  // The 2023 docs' example wraps the transaction in "payload"; current callbacks carry "data" at the top.
  const data = body?.data ?? body?.payload?.data;
  if (typeof data !== 'object' || data === null) return { kind: 'ignored', why: 'not a transaction callback' };
  const fields = data as Record<string, unknown>;
  const type = text(fields.type) ?? '';
  const statusWord = text(fields.status) ?? '';
  const statuses = STATUS_BY_TYPE[type];
  if (!statuses) return { kind: 'ignored', why: `transaction type ${type.slice(0, 40) || '(none)'}` };
  const status = statuses[statusWord];
  if (!status) return { kind: 'ignored', why: `${type} status ${statusWord.slice(0, 40) || '(none)'}` };
  const paymentId = text(fields.merchant_transaction_id);
  const providerReference = text(fields.id);
  const tx = typeof fields.tx === 'object' && fields.tx !== null ? (fields.tx as Record<string, unknown>) : {};
  const walletAddress = text(tx.address);
  return {
    kind: 'event',
    event: {
      match: paymentMatch({ paymentId, providerReference, walletAddress }),
      status,
      // Both words: a "failed" of the card payment and of the crypto transfer are different stories.
      rawStatus: `${type}:${statusWord}`,
      ...(providerReference ? { providerReference } : {}),
      ...declineKindField(status, type === 'buy' ? BUY_DECLINE_KIND[statusWord] : undefined),
    },
  };
}
