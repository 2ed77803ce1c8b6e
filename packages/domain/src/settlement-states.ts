import type { PayoutLegKind } from './fee-split';
import type { PaymentStatus } from './payment-states';
import type { StatusMove } from './state-moves';

/**
 * The settlement state machines, in one place: which status of a deposit, a payout leg and a
 * relayer transaction may follow which, and what each move requires. The repositories build the
 * guard of every status update (`WHERE status IN (...)`) from the moves below, and migration
 * CHECK constraints list the same statuses (a test compares both with this module).
 *
 * To add a state: add it to the status list, add the moves that enter and leave it, and write a
 * migration replacing the table's status CHECK constraint.
 */

export const DEPOSIT_STATUSES = [
  'seen',
  'final',
  'held',
  'forwarding',
  'forwarded',
  'orphaned',
  'needs_attention',
  'swept',
  'held_for_operator',
  'paid_by_operator',
] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

export const DEPOSIT_MOVES = {
  recordSeen: {
    from: ['seen', 'orphaned'],
    to: 'seen',
    requires:
      'the Transfer log read (again) on the canonical chain, by eth_getLogs or in its transaction receipt: an orphaned one came ' +
      'back, or an unfinal one is in another block now',
  },
  markFinal: {
    from: ['seen'],
    to: 'final',
    requires:
      'its block final by the finality rule (chain-finality: at or below the finalized block, CONFIRMATIONS deep only on a node ' +
      'without the tag) and still canonical',
  },
  markOrphaned: {
    from: ['seen'],
    to: 'orphaned',
    requires: "its block answered with another hash, and a second read, its transaction's receipt, without the transfer",
  },
  holdOtherToken: {
    from: ['final'],
    to: 'held_for_operator',
    requires:
      'a deposit of the other USDC (other-usdc: not the token the gateway settles) with OTHER_USDC_DEPOSITS=hold: never forwarded, ' +
      'never called back',
  },
  recordOperatorPayout: {
    from: ['held_for_operator'],
    to: 'paid_by_operator',
    requires:
      "an operator's transfer of the deposit's token from its temporary wallet to the wallet's payout address, of the merchant's " +
      'share or the whole deposit, read back from the chain, final and recorded once (operator_payouts) in the same transaction',
  },
  holdDust: {
    from: ['final'],
    to: 'held',
    requires:
      "an amount below DUST_THRESHOLD, or a fee worth less than the payout's gas (payoutGasCheck), also with its wallet's held dust added",
  },
  sweepDust: {
    from: ['held'],
    to: 'swept',
    requires: 'the payout of another deposit of its wallet, planned in the same transaction, carrying it (swept_by_deposit_id)',
  },
  forwardHeldDust: {
    from: ['held'],
    to: 'forwarding',
    requires: "an operator's dust sweep: its wallet's held dust planned as one payout it carries, in the same transaction",
  },
  startForwarding: { from: ['final'], to: 'forwarding', requires: 'its payout legs written in the same transaction' },
  completeForwarding: {
    from: ['forwarding'],
    to: 'forwarded',
    requires: 'every active leg confirmed, and the callback delivery written in the same transaction',
  },
  needAttention: {
    from: ['forwarding'],
    to: 'needs_attention',
    requires: 'a leg that holds the deposit back (legHoldsDepositBack) in needs_attention, its reason copied to the deposit',
  },
  replan: {
    from: ['needs_attention'],
    to: 'forwarding',
    requires: 'every unpaid leg cancelled (its authorization cancelled on chain) and a new plan written in the same transaction',
  },
} as const satisfies Record<string, StatusMove<DepositStatus>>;

/**
 * The statuses a deposit of the other USDC may have: the chain's (seen, final, orphaned), held for
 * the operator, and paid out by the operator by hand. Migration 023's trigger (040's since) refuses
 * any other for such a deposit, so no code path can forward it or write its callback as if it were
 * the settled token.
 */
export const OTHER_TOKEN_DEPOSIT_STATUSES = [
  'seen',
  'final',
  'orphaned',
  'held_for_operator',
  'paid_by_operator',
] as const satisfies readonly DepositStatus[];

/** Statuses in which settlement still owes work and a job must exist (the reconciler re-queues them). */
/**
 * The deposits an order counts (order-state.ts): every one the chain made final, whatever settlement
 * did with it since; not one still unconfirmed, and not one a reorg dropped.
 */
export const DEPOSIT_STATUSES_COUNTED_FOR_ORDER = [
  'final',
  'held',
  'forwarding',
  'forwarded',
  'needs_attention',
  'swept',
] as const satisfies readonly DepositStatus[];
export const DEPOSIT_STATUSES_OWING_SETTLEMENT = ['final', 'forwarding'] as const satisfies readonly DepositStatus[];

export const PAYOUT_LEG_STATUSES = ['planned', 'signed', 'broadcast', 'confirmed', 'needs_attention', 'cancelled'] as const;
export type PayoutLegStatus = (typeof PAYOUT_LEG_STATUSES)[number];

export const PAYOUT_LEG_MOVES = {
  sign: { from: ['planned'], to: 'signed', requires: 'the temporary wallet signature of its authorization stored' },
  broadcast: {
    from: ['planned', 'signed', 'broadcast'],
    to: 'broadcast',
    requires: 'a relayer transaction carrying its authorization recorded before it is sent',
  },
  confirm: {
    from: ['planned', 'signed', 'broadcast', 'needs_attention'],
    to: 'confirmed',
    requires: 'the transaction that used its authorization, final by the finality rule (chain-finality)',
  },
  needAttention: {
    from: ['planned', 'signed', 'broadcast'],
    to: 'needs_attention',
    requires: 'a reason it will not succeed by retrying (a NeedsAttentionReason)',
  },
  cancel: {
    from: ['planned', 'signed', 'broadcast', 'needs_attention'],
    to: 'cancelled',
    requires: 'its authorization cancelled on chain (or never signed) and a new leg planned in its place',
  },
} as const satisfies Record<string, StatusMove<PayoutLegStatus>>;

/** Legs the settlement loop drives and whose amounts make up the deposit; the others are kept for the record. */
export const ACTIVE_PAYOUT_LEG_STATUSES = [
  'planned',
  'signed',
  'broadcast',
  'confirmed',
  'needs_attention',
] as const satisfies readonly PayoutLegStatus[];

/**
 * Active legs not paid yet, which settlement drives on its own: a forwarded deposit with one still
 * owes work and keeps a job (the reconciler re-queues it); a needs_attention leg waits for a person.
 */
export const PAYOUT_LEG_STATUSES_UNPAID = ['planned', 'signed', 'broadcast'] as const satisfies readonly PayoutLegStatus[];

export const PAYOUT_TRANSACTION_STATUSES = ['recorded', 'sent', 'mined', 'reverted', 'replaced'] as const;
export type PayoutTransactionStatus = (typeof PAYOUT_TRANSACTION_STATUSES)[number];

export const PAYOUT_TRANSACTION_MOVES = {
  send: { from: ['recorded', 'sent'], to: 'sent', requires: 'the node accepted it' },
  mine: { from: ['recorded', 'sent'], to: 'mined', requires: 'its receipt, successful' },
  revert: { from: ['recorded', 'sent'], to: 'reverted', requires: 'its receipt, reverted' },
  replace: { from: ['recorded', 'sent'], to: 'replaced', requires: 'another transaction of the same relayer nonce mined' },
} as const satisfies Record<string, StatusMove<PayoutTransactionStatus>>;

/**
 * How one run of a deposit's settlement job ended. forwarded: every leg confirmed, the job is done;
 * in_flight: legs still unconfirmed (the deposit may be forwarded already: its merchant leg is),
 * the job runs again; not_final and busy (another worker has the deposit): runs again; error: failed,
 * retried with back-off; needs_attention: a leg will not succeed, the job is done until a person
 * re-plans the deposit; held: dust, below its gas cost, or in the other USDC; orphaned: by a reorg.
 */
const SETTLEMENT_OUTCOMES = ['forwarded', 'in_flight', 'held', 'orphaned', 'not_final', 'busy', 'error', 'needs_attention'] as const;
export type SettlementOutcome = (typeof SETTLEMENT_OUTCOMES)[number];

/**
 * Outcomes after which the job runs again a little later: it goes back to `delayed`, which is not a
 * failure (a queue's attempts and back-off are for failures only).
 */
const SETTLEMENT_OUTCOMES_RUNNING_AGAIN = ['in_flight', 'busy', 'not_final'] as const satisfies readonly SettlementOutcome[];

export function settlementRunsAgain(outcome: SettlementOutcome): boolean {
  return (SETTLEMENT_OUTCOMES_RUNNING_AGAIN as readonly SettlementOutcome[]).includes(outcome);
}

/**
 * Where one round left a payout leg, in the settlement outcomes' words: confirmed; in_flight (runs
 * again); needs_attention (the token will refuse it however often it is sent; nothing more is sent).
 */
export type LegOutcome = 'confirmed' | Extract<SettlementOutcome, 'in_flight' | 'needs_attention'>;

/** A round's outcome from its legs': in flight while any leg is, else needs_attention if one does, else forwarded. */
export function roundOutcome(legs: readonly LegOutcome[]): SettlementOutcome {
  if (legs.includes('in_flight')) return 'in_flight';
  return legs.includes('needs_attention') ? 'needs_attention' : 'forwarded';
}

/**
 * Whether the leg the merchant's callback waits for is confirmed: the merchant's leg, or every leg
 * for a split that pays the merchant nothing.
 */
export function merchantLegConfirmed(legs: readonly { kind: PayoutLegKind; outcome: LegOutcome | undefined }[]): boolean {
  const merchant = legs.find((leg) => leg.kind === 'merchant');
  return merchant ? merchant.outcome === 'confirmed' : legs.every((leg) => leg.outcome === 'confirmed');
}

type MachineStatus = DepositStatus | PayoutLegStatus | PayoutTransactionStatus | PaymentStatus;

/**
 * The statuses as a SQL list for `status IN (...)`. Safe to inline: only the literals of this
 * module reach it (the type allows nothing else).
 */
export function sqlStatusList(statuses: readonly MachineStatus[]): string {
  if (statuses.length === 0) throw new Error('an empty status list guards nothing');
  return statuses.map((status) => `'${status}'`).join(', ');
}

/**
 * Why a leg (and its deposit) needs a person: a revert the token will repeat however often the leg
 * is sent (a blacklisted recipient is named by its leg), or plan_mismatch: the leg's row is not the
 * leg the wallet's terms give (payout-plan), so settlement refuses to sign or send it.
 */
export const NEEDS_ATTENTION_REASONS = [
  'payout_address_blacklisted',
  'fee_address_blacklisted',
  'affiliate_address_blacklisted',
  'temporary_wallet_blacklisted',
  'authorization_cancelled',
  'insufficient_balance',
  'transfer_reverted',
  'plan_mismatch',
] as const;
export type NeedsAttentionReason = (typeof NEEDS_ATTENTION_REASONS)[number];

/** A blacklisted recipient, named by the leg that pays it. */
export const RECIPIENT_BLACKLISTED_REASON: Readonly<Record<PayoutLegKind, NeedsAttentionReason>> = {
  merchant: 'payout_address_blacklisted',
  platform: 'fee_address_blacklisted',
  affiliate: 'affiliate_address_blacklisted',
};

/**
 * Whether a leg that needs attention holds its whole deposit back (forwarding → needs_attention): only
 * the merchant's leg does, since it is what the deposit's callback waits for; a fee or affiliate
 * leg that needs a person never holds the merchant's payout or callback back, it is listed and
 * counted on its own. For a split that pays the merchant nothing, any leg does.
 */
export function legHoldsDepositBack(leg: PayoutLegKind, legsOfDeposit: readonly PayoutLegKind[]): boolean {
  return leg === 'merchant' || !legsOfDeposit.includes('merchant');
}
