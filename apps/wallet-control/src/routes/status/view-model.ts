import type { Static } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { COIN_NAMES, formatUsdc, PAID_ORDER_STATES, type UsdcCoin } from '@gateway/domain';
import type { MerchantCallbackDelivery } from '@gateway/db/wallet-control';
import type { CreditedDeposit, WalletOrder, WalletPayments } from '../../services/payment-status-service';
import type { paymentStatusBody } from './schemas';

export type PaymentStatusBody = Static<typeof paymentStatusBody>;

/** The `coin` every gateway answer and callback names (USDC on Polygon). */
const COIN = 'polygon_usdc';

/** Check Payment Status in the wire's words: amounts as USDC decimals, addresses EIP-55, times ISO 8601. */
export function paymentStatusView({ record, deposits, callbacks, order }: WalletPayments): PaymentStatusBody {
  const { forwarded, latestForwarded } = record;
  return {
    // A judged order is paid only in a paid state (20 of 50 USDC forwarded is not a paid order); one no
    // attempt recorded an expectation for is paid once a deposit was forwarded, as before orders were judged.
    status:
      forwarded.count > 0 && (order.judged === undefined || PAID_ORDER_STATES.includes(order.judged.classification.state))
        ? 'paid'
        : 'unpaid',
    value_coin: formatUsdc(forwarded.valueCoin),
    value_forwarded_coin: formatUsdc(forwarded.valueForwardedCoin),
    fee_coin: formatUsdc(forwarded.feeCoin),
    txid_in: latestForwarded?.txidIn ?? null,
    txid_out: latestForwarded?.txidOut ?? null,
    coin: COIN,
    polygon_address_in: getAddress(record.polygonAddress),
    payout_address: getAddress(record.payoutAddress),
    callback_url: record.callbackUrl,
    deposits: deposits.map(depositView),
    deposit_count: record.depositCount,
    payments: record.payments.map((payment) => ({
      payment_id: payment.id,
      provider: payment.provider,
      amount: payment.amount,
      currency: payment.currency,
      provider_status: payment.providerStatus,
      provider_reference: payment.providerReference,
      created_at: payment.createdAt.toISOString(),
      provider_updated_at: payment.providerUpdatedAt?.toISOString() ?? null,
    })),
    callback_log: { delivery_count: callbacks.deliveryCount, deliveries: callbacks.deliveries.map(callbackDeliveryView) },
    order: orderView(order),
  };
}

/** The order's figures as the callbacks carry them (formatUsdc); with no expectation recorded, the total alone and why. */
function orderView({ totalUsdc, judged }: WalletOrder): PaymentStatusBody['order'] {
  if (judged === undefined) {
    return {
      total_coin: formatUsdc(totalUsdc),
      expected_coin: null,
      expected_basis: null,
      state: null,
      missing_coin: null,
      excess_coin: null,
      late_coin: null,
      tolerance_bps: null,
      window_ends_at: null,
      judged_by: null,
      reason:
        `${formatUsdc(totalUsdc)} USDC arrived; no payment attempt on this wallet recorded what the order should bring (it was ` +
        'paid without Process Payment, or its attempts came before the gateway recorded orders), so the total is not judged',
    };
  }
  const { classification, attempt } = judged;
  return {
    total_coin: formatUsdc(classification.totalUsdc),
    expected_coin: formatUsdc(classification.expectedUsdc),
    expected_basis: judged.basis,
    state: classification.state,
    missing_coin: formatUsdc(classification.missingUsdc),
    excess_coin: formatUsdc(classification.excessUsdc),
    late_coin: formatUsdc(classification.lateUsdc),
    tolerance_bps: judged.toleranceBps,
    window_ends_at: judged.windowEndsAt.toISOString(),
    judged_by: {
      payment_id: attempt.paymentId,
      provider: attempt.provider,
      amount: attempt.amount,
      currency: attempt.currency,
      amount_usd: attempt.amountUsd,
    },
    reason: classification.reason,
  };
}

function callbackDeliveryView(delivery: MerchantCallbackDelivery): PaymentStatusBody['callback_log']['deliveries'][number] {
  return {
    delivery_id: delivery.id,
    status: delivery.status,
    txid_in: delivery.txidIn,
    created_at: delivery.createdAt.toISOString(),
    delivered_at: delivery.deliveredAt?.toISOString() ?? null,
    // A delivered or failed row keeps the time it was last due: no attempt is coming.
    next_attempt_at: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
    attempt_count: delivery.attemptCount,
    resend_count: delivery.resendCount,
    resent_at: delivery.resentAt?.toISOString() ?? null,
    attempts: delivery.attempts.map((attempt) => ({
      attempt_no: attempt.attemptNo,
      started_at: attempt.startedAt.toISOString(),
      duration_ms: attempt.durationMs,
      http_status: attempt.statusCode,
      error_code: attempt.errorCode,
      response_excerpt: attempt.responseExcerpt,
      response_excerpt_truncated: attempt.responseExcerptCut,
    })),
  };
}

function depositView({ deposit, coin, token, creditedTo }: CreditedDeposit): PaymentStatusBody['deposits'][number] {
  return {
    status: deposit.status,
    attention_reason: deposit.attentionReason,
    amount: formatUsdc(deposit.amount),
    coin,
    token_address: getAddress(token),
    note:
      deposit.status === 'held_for_operator'
        ? heldForOperatorNote(deposit.amount, coin)
        : deposit.status === 'paid_by_operator'
          ? paidByOperatorNote(deposit.amount, coin)
          : null,
    value_forwarded_coin: deposit.valueForwardedCoin === null ? null : formatUsdc(deposit.valueForwardedCoin),
    fee_coin: deposit.feeCoin === null ? null : formatUsdc(deposit.feeCoin),
    txid_in: deposit.txHash,
    txid_out: deposit.txidOut,
    seen_at: deposit.seenAt.toISOString(),
    forwarded_at: deposit.forwardedAt?.toISOString() ?? null,
    payment_id: creditedTo?.id ?? null,
    provider: creditedTo?.provider ?? null,
  };
}

function paidByOperatorNote(amount: bigint, coin: UsdcCoin): string {
  return (
    `The customer paid ${formatUsdc(amount)} ${COIN_NAMES[coin]}, a USDC this gateway does not settle. The gateway operator paid ` +
    'it out to the payout wallet by hand; no callback is sent for it.'
  );
}

function heldForOperatorNote(amount: bigint, coin: UsdcCoin): string {
  return (
    `The customer paid ${formatUsdc(amount)} ${COIN_NAMES[coin]}, a USDC this gateway does not settle. It is held for the gateway ` +
    'operator: it has not been forwarded to the payout wallet and no callback was sent for it. Contact the gateway operator.'
  );
}
