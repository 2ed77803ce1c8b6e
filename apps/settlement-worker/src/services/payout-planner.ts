import type { Address } from 'viem';
import { splitWalletDeposit, type PayoutLegKind } from '@gateway/domain';
import { randomAuthorizationNonce } from '@gateway/chain';
import type { NewPayoutLeg, SettlementDeposit } from '@gateway/db';

export interface PayoutPlannerSettings {
  platformFeeBps: number;
  platformFeeAddress: Address;
  authorizationValiditySeconds: number;
}

/**
 * The legs of one payout out of a deposit's temporary wallet: the split of what the payout moves
 * (the deposit, plus the held dust it sweeps) by the wallet's terms, each leg with a fresh random
 * EIP-3009 nonce. The settlement worker plans with it, and so does sweep-dust.
 */
export class PayoutPlanner {
  constructor(private readonly settings: PayoutPlannerSettings) {}

  legs(deposit: SettlementDeposit, payable: bigint): NewPayoutLeg[] {
    const { settings } = this;
    const split = splitWalletDeposit(payable, settings.platformFeeBps, deposit);
    const recipients: Record<PayoutLegKind, string | null> = {
      merchant: deposit.payoutAddress,
      platform: settings.platformFeeAddress,
      affiliate: deposit.affiliateAddress,
    };
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + settings.authorizationValiditySeconds);
    return split.legs.map(({ kind, amount }) => {
      const toAddress = recipients[kind];
      if (!toAddress) throw new Error(`wallet ${deposit.walletId} has an affiliate share but no affiliate address`);
      return { leg: kind, fromAddress: deposit.temporaryAddress, toAddress, amount, authorizationNonce: randomAuthorizationNonce(), validBefore };
    });
  }
}
