import { encodeAbiParameters, keccak256, type Hex } from 'viem';
import type { PayoutLegKind } from './fee-split';

/** What names one payout leg for all time: the deposit that carries it (as the chain knows it), the leg, and its plan. */
export interface PayoutLegIdentity {
  chainId: number;
  /** The carrying deposit's Transfer: its transaction hash and log index. */
  depositTxHash: string;
  depositLogIndex: number;
  leg: PayoutLegKind;
  /**
   * Which plan of the deposit's this leg belongs to: 0 for the first, n for the leg a re-plan writes
   * after n legs of its kind were planned for the deposit before (gateway deposits replan).
   */
  generation: number;
}

const DOMAIN_TAG = 'usdc-card-gateway/payout-authorization/v1';

/**
 * The EIP-3009 nonce of a payout leg, derived from what the chain itself records about the deposit
 * rather than drawn at random: a database restored from a backup taken before the leg was planned
 * plans it again under the SAME nonce, so the token refuses to execute it twice and settlement finds
 * the original payout by its AuthorizationUsed log instead of paying the deposit a second time.
 * Nothing else goes in: not the amount or recipient (a plan computed again after a restore could
 * differ, a dust sweep carrying other deposits, and must then still meet the nonce already used),
 * and no database id (a restored database numbers deposits found again anew). Knowing a nonce gives
 * nobody anything: only the temporary wallet's key signs an authorization or its cancellation.
 */
export function payoutAuthorizationNonce(identity: PayoutLegIdentity): Hex {
  if (!/^0x[0-9a-fA-F]{64}$/.test(identity.depositTxHash)) throw new Error(`not a transaction hash: ${identity.depositTxHash}`);
  if (!Number.isSafeInteger(identity.depositLogIndex) || identity.depositLogIndex < 0) {
    throw new Error(`not a log index: ${identity.depositLogIndex}`);
  }
  if (!Number.isSafeInteger(identity.generation) || identity.generation < 0)
    throw new Error(`not a plan generation: ${identity.generation}`);
  return keccak256(
    encodeAbiParameters(
      [{ type: 'string' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'string' }, { type: 'uint256' }],
      [
        DOMAIN_TAG,
        BigInt(identity.chainId),
        identity.depositTxHash.toLowerCase() as Hex,
        BigInt(identity.depositLogIndex),
        identity.leg,
        BigInt(identity.generation),
      ],
    ),
  );
}
