import { keccak256, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { SignedRelayerTransaction } from '@gateway/db';
import type { FeeEstimate } from './settlement-chain';

export interface RelayerCall {
  to: Address;
  data: Hex;
  nonce: bigint;
  gasLimit: bigint;
  fees: FeeEstimate;
}

/**
 * The gas wallet: it signs the transactions that carry the temporary wallets' authorizations
 * and pays their gas. Transactions are signed locally (EIP-1559) so they can be recorded,
 * raw, before they are broadcast.
 */
export class Relayer {
  private readonly account: PrivateKeyAccount;

  constructor(
    privateKey: Hex,
    private readonly chainId: number,
    private readonly feeBumpPercent: number,
  ) {
    this.account = privateKeyToAccount(privateKey);
  }

  get address(): Address {
    return this.account.address;
  }

  async sign(call: RelayerCall): Promise<SignedRelayerTransaction> {
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
   * Fees for a transaction replacing `previous` under the same nonce: both caps raised by at
   * least the bump (nodes refuse a replacement under +10%), or to today's estimate if higher.
   */
  replacementFees(previous: FeeEstimate, current: FeeEstimate): FeeEstimate {
    const bump = (value: bigint) => max((value * BigInt(100 + this.feeBumpPercent) + 99n) / 100n, value + 1n);
    const maxPriorityFeePerGas = max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
    const maxFeePerGas = max(bump(previous.maxFeePerGas), current.maxFeePerGas, maxPriorityFeePerGas);
    return { maxFeePerGas, maxPriorityFeePerGas };
  }
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (a > b ? a : b));
}
