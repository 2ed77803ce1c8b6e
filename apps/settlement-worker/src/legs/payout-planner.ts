import type { Address } from 'viem';
import { payoutPlan, type PlannedLeg } from '@gateway/domain';
import { randomAuthorizationNonce } from '@gateway/chain';
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
 * The legs of one payout out of a deposit's temporary wallet (depositPlan), each with a fresh
 * random EIP-3009 nonce. The settlement worker plans with it, and so does gateway dust sweep.
 */
export class PayoutPlanner {
  constructor(private readonly settings: PayoutPlannerSettings) {}

  legs(deposit: SettlementDeposit, payable: bigint): NewPayoutLeg[] {
    return this.legsOf(depositPlan(deposit, this.settings.platformFeeAddress, payable));
  }

  /** The rows of a plan already derived (the settlement round's, computed once). */
  legsOf(plan: readonly PlannedLeg[]): NewPayoutLeg[] {
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + this.settings.authorizationValiditySeconds);
    return plan.map((leg) => ({
      leg: leg.kind,
      fromAddress: leg.from,
      toAddress: leg.to,
      amount: leg.amount,
      authorizationNonce: randomAuthorizationNonce(),
      validBefore,
    }));
  }
}
