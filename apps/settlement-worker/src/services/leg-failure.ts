import { getAddress } from 'viem';
import { usdcAbi } from '@gateway/chain';
import { RECIPIENT_BLACKLISTED_REASON, type NeedsAttentionReason } from '@gateway/domain';
import type { PayoutLegRow } from '@gateway/db/settlement-worker';
import { classifyTokenRevert } from './chain-errors';
import type { SettlementChain } from './settlement-chain';

/**
 * What to do about a failed round of a payout leg:
 *  - needs-attention: the token will refuse the leg however often it is sent; a person decides;
 *  - wait: the token refuses everything for now (paused): a Circle pause is an incident that ends,
 *    and the leg's authorization stays good (renewed with the same nonce if it runs out), so the
 *    round is retried with back-off and the leg goes through once the token is unpaused;
 *  - retry: anything else (RPC trouble, a race with the chain that the next round reads).
 */
export type LegFailure =
  | { verdict: 'needs-attention'; reason: NeedsAttentionReason; detail: string }
  | { verdict: 'wait'; reason: 'token_paused' }
  | { verdict: 'retry' };

const RETRY: LegFailure = { verdict: 'retry' };

/** Judges the failures of payout legs from the token's revert reason and, for a blacklisting, the token's blacklist. */
export class LegFailureJudge {
  constructor(private readonly chain: SettlementChain) {}

  async judge(leg: PayoutLegRow, error: unknown): Promise<LegFailure> {
    const classified = classifyTokenRevert(error);
    if (!classified) return RETRY;
    const detail = classified.reason || 'execution reverted without a reason';
    switch (classified.revert) {
      case 'paused':
        return { verdict: 'wait', reason: 'token_paused' };
      case 'insufficient_balance':
        return { verdict: 'needs-attention', reason: 'insufficient_balance', detail };
      case 'blacklisted':
        return this.whoIsBlacklisted(leg, detail);
      // The authorization's state changed under the round (it ran out, or was used or cancelled):
      // the next round reads it from the chain and renews, confirms, or finds the cancellation.
      case 'authorization_expired':
      case 'authorization_used_or_canceled':
        return RETRY;
      case 'other':
        return { verdict: 'needs-attention', reason: 'transfer_reverted', detail };
    }
  }

  // FiatToken's revert does not say which account is blacklisted: ask the token.
  private async whoIsBlacklisted(leg: PayoutLegRow, detail: string): Promise<LegFailure> {
    if (await this.isBlacklisted(leg.toAddress))
      return { verdict: 'needs-attention', reason: RECIPIENT_BLACKLISTED_REASON[leg.leg], detail };
    if (await this.isBlacklisted(leg.fromAddress)) return { verdict: 'needs-attention', reason: 'temporary_wallet_blacklisted', detail };
    // Taken off the blacklist since the revert: send again.
    return RETRY;
  }

  private isBlacklisted(account: string): Promise<boolean> {
    return this.chain.client.readContract({
      address: this.chain.token,
      abi: usdcAbi,
      functionName: 'isBlacklisted',
      args: [getAddress(account)],
    });
  }
}
