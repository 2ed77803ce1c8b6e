import { keccak256, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { SignedRelayerTransaction } from '@gateway/db/settlement-worker';
import type { FeeEstimate } from './settlement-chain-client';

export interface RelayerCall {
  to: Address;
  data: Hex;
  nonce: bigint;
  gasLimit: bigint;
  fees: FeeEstimate;
}

/** Fees to sign with; `capped` when the ceiling, not the estimate or the bump, set them. */
export interface PricedFees {
  fees: FeeEstimate;
  capped: boolean;
}

// A node takes a transaction in place of a pending one with the same nonce only when both fee
// caps are at least this much higher (geth's and bor's txpool price bump).
const MIN_REPLACEMENT_BUMP_PERCENT = 10n;
// A plain transfer of the native coin, the cheapest transaction that spends a nonce.
const NONCE_FILLER_GAS = 21_000n;

/**
 * The gas wallet: it signs the transactions that carry the temporary wallets' authorizations
 * and pays their gas. Transactions are signed locally (EIP-1559) so they can be recorded,
 * raw, before they are broadcast. No transaction is signed with a maxFeePerGas above the
 * ceiling (MAX_FEE_PER_GAS_GWEI).
 */
export class Relayer {
  private readonly account: PrivateKeyAccount;

  constructor(
    privateKey: Hex,
    private readonly chainId: number,
    private readonly feeBumpPercent: number,
    private readonly maxFeePerGas: bigint,
  ) {
    this.account = privateKeyToAccount(privateKey);
  }

  get address(): Address {
    return this.account.address;
  }

  async sign(call: RelayerCall): Promise<SignedRelayerTransaction> {
    if (call.fees.maxFeePerGas > this.maxFeePerGas) {
      throw new Error(`a relayer transaction at ${call.fees.maxFeePerGas} wei per gas is above the ceiling ${this.maxFeePerGas}`);
    }
    const rawTx = await this.account.signTransaction({
      type: 'eip1559',
      chainId: this.chainId,
      nonce: Number(call.nonce),
      to: call.to,
      data: call.data,
      value: 0n,
      gas: call.gasLimit,
      maxFeePerGas: call.fees.maxFeePerGas,
      maxPriorityFeePerGas: call.fees.maxPriorityFeePerGas,
    });
    return { txHash: keccak256(rawTx), rawTx, gasLimit: call.gasLimit, ...call.fees };
  }

  /**
   * A transfer of nothing to the relayer itself under `nonce`: it spends a relayer nonce that a
   * payout transaction held but will never use (the node dropped it after someone else paid the
   * leg), so the relayer's later transactions are not stuck behind the gap.
   */
  signNonceFiller(nonce: bigint, estimate: FeeEstimate): Promise<SignedRelayerTransaction> {
    return this.sign({ to: this.address, data: '0x', nonce, gasLimit: NONCE_FILLER_GAS, fees: this.firstFees(estimate).fees });
  }

  /** Fees for a first transaction under its nonce: the estimate, at most the ceiling. */
  firstFees(estimate: FeeEstimate): PricedFees {
    return this.capAtCeiling(estimate);
  }

  /**
   * Fees for a transaction replacing `previous` under the same nonce: both caps raised by the
   * bump, or to today's estimate if higher, and cut to the ceiling. Undefined when the most the
   * ceiling allows is not a replacement the node would take (previous is at or near the ceiling
   * already): the transaction is left as it is.
   */
  replacementFees(previous: FeeEstimate, current: FeeEstimate): PricedFees | undefined {
    const bump = (value: bigint) => max((value * BigInt(100 + this.feeBumpPercent) + 99n) / 100n, value + 1n);
    const maxPriorityFeePerGas = max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
    const maxFeePerGas = max(bump(previous.maxFeePerGas), current.maxFeePerGas, maxPriorityFeePerGas);
    const priced = this.capAtCeiling({ maxFeePerGas, maxPriorityFeePerGas });
    const least = (value: bigint) => (value * (100n + MIN_REPLACEMENT_BUMP_PERCENT) + 99n) / 100n;
    const accepted =
      priced.fees.maxFeePerGas >= least(previous.maxFeePerGas) && priced.fees.maxPriorityFeePerGas >= least(previous.maxPriorityFeePerGas);
    return accepted ? priced : undefined;
  }

  private capAtCeiling(fees: FeeEstimate): PricedFees {
    if (fees.maxFeePerGas <= this.maxFeePerGas) return { fees, capped: false };
    const ceiling = this.maxFeePerGas;
    return { fees: { maxFeePerGas: ceiling, maxPriorityFeePerGas: min(fees.maxPriorityFeePerGas, ceiling) }, capped: true };
  }
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b));
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
