import type { DepositStatus } from './settlement-states';

/**
 * What a customer's receipt page says about a payment: the provider's word until USDC arrives,
 * then the chain's. The chain is the source of truth for money; the provider's status only
 * explains the wait (or a declined card).
 */

/**
 * What a provider reports about a payment (its webhook), mapped by the provider's adapter.
 * `charged`: the card was charged but the provider has not sent the USDC yet; a refund or a failed
 * crypto transfer may still follow. `paid`: the provider says the USDC was sent.
 */
export type ProviderPaymentStatus = 'pending' | 'charged' | 'paid' | 'declined' | 'failed';

/** The steps of the receipt page, in order. */
export const RECEIPT_STEPS = ['waiting_for_provider', 'usdc_received', 'confirmed', 'sent_to_merchant'] as const;
export type ReceiptStep = (typeof RECEIPT_STEPS)[number];

export interface ReceiptDeposit {
  status: DepositStatus;
  /** Token base units. */
  amount: bigint;
}

export interface ReceiptProgress {
  /** The step every counted deposit has reached (the first when none arrived). */
  step: ReceiptStep;
  /** The provider refused the card and no USDC arrived: the customer may try again. */
  declined: boolean;
  /**
   * Why a deposit that arrived is not being forwarded now: held dust waits for the next deposit into
   * the wallet (or an operator's sweep); a payout the token refuses waits for the operator; a
   * deposit of the other USDC (USDC.e) is held for the operator, the merchant not paid.
   */
  waitingOn: 'next_deposit' | 'operator' | 'other_token' | null;
  /** Nothing will change on its own any more: the page stops refreshing. */
  final: boolean;
  /** USDC received, summed over the counted deposits (base units). */
  receivedUsdc: bigint;
  /** How many deposits count. */
  deposits: number;
}

const STEP_OF: Record<Exclude<DepositStatus, 'orphaned'>, ReceiptStep> = {
  seen: 'usdc_received',
  final: 'confirmed',
  held: 'confirmed',
  forwarding: 'confirmed',
  needs_attention: 'confirmed',
  forwarded: 'sent_to_merchant',
  // Dust paid out by a later deposit's payout (which the page counts as well while it is under way).
  swept: 'sent_to_merchant',
  // Arrived and final, in the USDC the gateway does not settle: it goes no further on its own.
  held_for_operator: 'confirmed',
  // Paid to the merchant by the operator, by hand, from the temporary wallet.
  paid_by_operator: 'sent_to_merchant',
};

/**
 * The progress of one payment. Deposits counted are those into the payment's wallet since the
 * payment started (the caller selects them); a deposit orphaned by a reorg never happened. With
 * several deposits the page shows the step all of them have reached, so "sent to the merchant"
 * means every USDC that arrived was forwarded.
 */
export function receiptProgress(providerStatus: ProviderPaymentStatus | null, deposits: readonly ReceiptDeposit[]): ReceiptProgress {
  const counted = deposits.filter((deposit) => deposit.status !== 'orphaned');
  const receivedUsdc = counted.reduce((sum, deposit) => sum + deposit.amount, 0n);
  if (counted.length === 0) {
    const declined = providerStatus === 'declined' || providerStatus === 'failed';
    return { step: 'waiting_for_provider', declined, waitingOn: null, final: false, receivedUsdc, deposits: 0 };
  }
  const stepIndex = Math.min(...counted.map((deposit) => RECEIPT_STEPS.indexOf(STEP_OF[deposit.status as keyof typeof STEP_OF])));
  const step = RECEIPT_STEPS[stepIndex] ?? 'waiting_for_provider';
  const waitingOn = counted.some((deposit) => deposit.status === 'held_for_operator')
    ? 'other_token'
    : counted.some((deposit) => deposit.status === 'needs_attention')
      ? 'operator'
      : counted.some((deposit) => deposit.status === 'held')
        ? 'next_deposit'
        : null;
  const allSettled = counted.every((deposit) =>
    ['forwarded', 'swept', 'held', 'needs_attention', 'held_for_operator', 'paid_by_operator'].includes(deposit.status),
  );
  return { step, declined: false, waitingOn, final: allSettled, receivedUsdc, deposits: counted.length };
}
