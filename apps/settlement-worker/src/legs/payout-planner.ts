import type { Address } from 'viem';
import { payoutAuthorizationNonce, payoutPlan, type PlannedLeg } from '@gateway/domain';
import type { NewPayoutLeg, SettlementDeposit } from '@gateway/db/settlement-worker';

export interface PayoutPlannerSettings {
  platformFeeAddress: Address;
  authorizationValiditySeconds: number;
}

/**
 * The plan of a deposit's payout from its wallet's terms as PostgreSQL holds them now: what the
 * payout moves (the deposit, plus the held dust it swept), split by the fees the wallet records,
 * to the wallet's payout and affiliate addresses and PLATFORM_FEE_ADDRESS. Settlement derives it
 * again before every round, and a leg that differs from it is never signed.
 */
export function depositPlan(
  deposit: SettlementDeposit,
  platformFeeAddress: Address,
  payable = deposit.amount + deposit.sweptAmount,
): PlannedLeg[] {
  return payoutPlan(payable, deposit.temporaryAddress, deposit, {
    merchant: deposit.payoutAddress,
    platform: platformFeeAddress,
    affiliate: deposit.affiliateAddress,
  });
}

/**
 * The legs of the first payout plan of a deposit out of its temporary wallet (depositPlan), each
 * with the EIP-3009 nonce its identity gives (payoutAuthorizationNonce, generation 0): planned again
 * from a restored backup, a leg meets the nonce the chain already executed. The settlement worker
 * plans with it, and so does gateway dust sweep.
 */
export class PayoutPlanner {
  constructor(private readonly settings: PayoutPlannerSettings) {}

  legs(deposit: SettlementDeposit, payable: bigint): NewPayoutLeg[] {
    return this.legsOf(deposit, depositPlan(deposit, this.settings.platformFeeAddress, payable));
  }

  /** The rows of a plan of `deposit` already derived (the settlement round's, computed once). */
  legsOf(deposit: SettlementDeposit, plan: readonly PlannedLeg[]): NewPayoutLeg[] {
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + this.settings.authorizationValiditySeconds);
    return plan.map((leg) => ({
      leg: leg.kind,
      fromAddress: leg.from,
      toAddress: leg.to,
      amount: leg.amount,
      authorizationNonce: payoutAuthorizationNonce({
        chainId: deposit.chainId,
        depositTxHash: deposit.txHash,
        depositLogIndex: deposit.logIndex,
        leg: leg.kind,
        generation: 0,
      }),
      validBefore,
    }));
  }
}
