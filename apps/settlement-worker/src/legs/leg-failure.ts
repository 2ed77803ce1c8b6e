import { getAddress } from 'viem';
import { usdcAbi } from '@gateway/chain';
import { RECIPIENT_BLACKLISTED_REASON, type NeedsAttentionReason } from '@gateway/domain';
import type { PayoutLegRow } from '@gateway/db/settlement-worker';
import { classifyTokenRevert } from '../chain/chain-errors';
import type { SettlementChainClient } from '../chain/settlement-chain-client';

/**
 * What to do about a failed round of a payout leg:
 *  - needs_attention: the token will refuse the leg however often it is sent; a person decides;
 *  - wait: the token refuses everything for now (paused): a Circle pause is an incident that ends,
 *    and the leg's authorization stays good (renewed with the same nonce if it runs out), so the
 *    round is retried with back-off and the leg goes through once the token is unpaused;
 *  - retry: anything else (RPC trouble, a race with the chain that the next round reads).
 */
export type LegFailure =
  | { action: 'needs_attention'; reason: NeedsAttentionReason; detail: string }
  | { action: 'wait'; reason: 'token_paused' }
  | { action: 'retry' };

const RETRY: LegFailure = { action: 'retry' };

/** Classifies the failures of payout legs by the token's revert reason and, for a blacklisting, the token's blacklist. */
export class LegFailureClassifier {
  constructor(private readonly chain: SettlementChainClient) {}

  async classify(leg: PayoutLegRow, error: unknown): Promise<LegFailure> {
    const classified = classifyTokenRevert(error);
    if (!classified) return RETRY;
    const detail = classified.reason || 'execution reverted without a reason';
    switch (classified.revert) {
      case 'paused':
        return { action: 'wait', reason: 'token_paused' };
      case 'insufficient_balance':
        return { action: 'needs_attention', reason: 'insufficient_balance', detail };
      case 'blacklisted':
        return this.whoIsBlacklisted(leg, detail);
      // The authorization's state changed under the round (it ran out, or was used or cancelled):
      // the next round reads it from the chain and renews, confirms, or finds the cancellation.
      case 'authorization_expired':
      case 'authorization_used_or_canceled':
        return RETRY;
      case 'other':
        return { action: 'needs_attention', reason: 'transfer_reverted', detail };
    }
  }

  // FiatToken's revert does not say which account is blacklisted: ask the token.
  private async whoIsBlacklisted(leg: PayoutLegRow, detail: string): Promise<LegFailure> {
    if (await this.isBlacklisted(leg.toAddress))
      return { action: 'needs_attention', reason: RECIPIENT_BLACKLISTED_REASON[leg.leg], detail };
    if (await this.isBlacklisted(leg.fromAddress)) return { action: 'needs_attention', reason: 'temporary_wallet_blacklisted', detail };
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
