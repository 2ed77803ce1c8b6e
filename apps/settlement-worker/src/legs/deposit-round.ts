import type { LocalAccount } from 'viem';
import type { PayoutLegRow, SettlementDeposit } from '@gateway/db/settlement-worker';
import type { LegOutcome, NeedsAttentionReason, PlannedLeg } from '@gateway/domain';

/**
 * One round over a deposit's payout, read once at its start: the deposit, its active legs, its
 * payout plan derived from its wallet's terms now (depositPlan, computed once), and the temporary
 * wallet's key. Nothing in a round reads the deposit or its legs again.
 */
export interface DepositRound {
  deposit: SettlementDeposit;
  legs: readonly PayoutLegRow[];
  plan: readonly PlannedLeg[];
  signer: LocalAccount;
}

/**
 * Where the round left one leg, with what the deposit needs of it: the paying transaction of a
 * confirmed leg (the callback's txid_out), the reason of one that needs attention (the deposit's).
 */
export type LegResult =
  | { outcome: Extract<LegOutcome, 'confirmed'>; txHash: string | null }
  | { outcome: Extract<LegOutcome, 'in_flight'> }
  | { outcome: Extract<LegOutcome, 'needs_attention'>; reason: NeedsAttentionReason | null; detail: string | null };

export const IN_FLIGHT: LegResult = { outcome: 'in_flight' };
