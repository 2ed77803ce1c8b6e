import { Mutex } from 'async-mutex';
import { WaitForTransactionReceiptTimeoutError, type Address, type Hash, type Hex } from 'viem';
import type { FunderWallet } from './funder-wallet';
import type { SandboxOrderRepository } from './order-repository';

/** The transfer was broadcast but not mined in time; it stays recorded and is picked up again. */
export class DeliveryPendingError extends Error {
  constructor(readonly txHash: Hash) {
    super(`transfer ${txHash} not mined yet`);
    this.name = 'DeliveryPendingError';
  }
}

export interface Delivery {
  txHash: Hash;
  /** The test USDC the transfer sends (base units). */
  usdc: bigint;
  /** True for the one call that marked the order paid; replays and concurrent calls get false. */
  justPaid: boolean;
}

export const RECEIPT_TIMEOUT_MS = 20_000;

/**
 * Sends each order's test USDC exactly once. The transfer is signed and stored before it is
 * broadcast, so after a crash the same bytes are sent again (a signed transaction mines at
 * most once) instead of a second transfer. One funded account means one nonce sequence: signing
 * and broadcasting take turns in this process, so two orders never get the same nonce.
 */
export class OrderPayer {
  private readonly turns = new Mutex();

  constructor(private readonly deps: { orders: SandboxOrderRepository; funder: FunderWallet; receiptTimeoutMs?: number }) {}

  async deliver(paymentId: string): Promise<Delivery> {
    const { txHash, usdc } = await this.turns.runExclusive(() => this.broadcastOnce(paymentId));
    const receipt = await this.deps.funder
      .waitForReceipt(txHash, this.deps.receiptTimeoutMs ?? RECEIPT_TIMEOUT_MS)
      .catch((error: unknown) => {
        throw error instanceof WaitForTransactionReceiptTimeoutError ? new DeliveryPendingError(txHash) : error;
      });
    if (receipt.status !== 'success') {
      // Mined and reverted (the funder ran out of test USDC): it can never pay, so let a retry sign anew.
      await this.deps.orders.forgetRevertedTransfer(paymentId, txHash);
      throw new Error(`transfer ${txHash} reverted; is the sandbox funder out of test USDC?`);
    }
    return { txHash, usdc, justPaid: await this.deps.orders.markPaid(paymentId, txHash) };
  }

  /** The order's one live transfer (its hash and amount), broadcast; signs and records it first if there is none. */
  private async broadcastOnce(paymentId: string): Promise<{ txHash: Hash; usdc: bigint }> {
    const order = await this.deps.orders.find(paymentId);
    if (!order) throw new Error(`no sandbox order ${paymentId}`);
    const usdc = BigInt(order.usdcAmount);
    if (order.status === 'paid' && order.txHash) return { txHash: order.txHash, usdc };
    if (order.rawTx && order.txHash && (await this.rebroadcast(order.rawTx, order.txHash))) return { txHash: order.txHash, usdc };
    const { funder, orders } = this.deps;
    const signed = await funder.signTransfer(order.walletAddress as Address, usdc);
    if (!(await orders.recordSignedTransfer(paymentId, signed, order.txHash))) {
      throw new Error(`order ${paymentId} changed while its transfer was being signed; retry`);
    }
    await funder.broadcast(signed.rawTx);
    return { txHash: signed.hash, usdc };
  }

  /** Sends the stored transfer again; false when it can never be mined (its nonce went to another transaction). */
  private async rebroadcast(rawTx: Hex, txHash: Hash): Promise<boolean> {
    const { funder } = this.deps;
    if (await funder.knows(txHash)) return true;
    try {
      await funder.broadcast(rawTx);
      return true;
    } catch (error) {
      if (await funder.knows(txHash)) return true;
      if (await funder.nonceSpent(rawTx)) return false;
      throw error;
    }
  }
}
