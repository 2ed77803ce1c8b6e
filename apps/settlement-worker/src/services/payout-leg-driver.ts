import { getAddress, parseTransaction, type Hash, type Hex, type LocalAccount, type TransactionReceipt } from 'viem';
import {
  encodeTransferWithAuthorization,
  signTransferAuthorization,
  splitSignature,
  type TransferAuthorization,
} from '@gateway/chain';
import type { PayoutLegRow, PayoutRepository, PayoutTransactionReason, PayoutTransactionRow } from '@gateway/db';
import type { FastifyBaseLogger } from 'fastify';
import type { CrashHook } from './crash-points';
import type { Relayer } from './relayer';
import type { AuthorizationUse, SettlementChain } from './settlement-chain';
import { isTransportError } from './chain-errors';
import type { RelayerSendKind, SettlementMetrics } from '../metrics';

export type LegProgress = 'confirmed' | 'in-flight';

export interface LegDriverSettings {
  /** Blocks on top of the paying transaction's block before the leg counts as paid. */
  confirmations: number;
  stuckTxTimeoutMs: number;
  authorizationValiditySeconds: number;
}

export interface LegDriverDeps {
  payouts: PayoutRepository;
  chain: SettlementChain;
  relayer: Relayer;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
  crash: CrashHook;
  settings: LegDriverSettings;
}

/** What a leg is being paid for: the deposit's block (no payout can be older) and the temporary wallet's key. */
export interface LegContext {
  depositBlock: bigint;
  signer: LocalAccount;
}

interface CurrentAuthorization {
  authorization: TransferAuthorization;
  signature: Hex;
}

// eth_estimateGas is exact for the state it ran against; a recipient's balance can change before
// the transaction lands (first USDC it receives costs a fresh storage slot).
const GAS_HEADROOM_PERCENT = 25n;

/**
 * Moves one payout leg one step closer to paid, from what the chain and the database say now.
 * It keeps no state between calls: a new process, or the same one after any failure, calls it
 * again and it picks up where things are.
 *
 * Why a leg is paid at most once: its EIP-3009 authorization nonce is fixed when the leg is
 * planned and every signature of the leg (including renewals of an expired validBefore) uses it,
 * so the token executes at most one of them however many relayer transactions carry them.
 * Why it is paid at least once: every relayer transaction is recorded (raw, with its hash and
 * relayer nonce) before it is broadcast, and each call re-reads the chain:
 *  - authorization used: find the paying transaction (our receipts, else its AuthorizationUsed
 *    log) and confirm the leg once it is CONFIRMATIONS deep and our relayer nonce is spent;
 *  - not used, nothing recorded: sign (if needed), record with a fresh relayer nonce, broadcast;
 *  - our transaction mined but reverted, or its relayer nonce taken by another transaction:
 *    record a new transaction under a new relayer nonce;
 *  - recorded but unknown to the node (never sent, or dropped): broadcast the same raw bytes;
 *  - carrying an authorization that had to be renewed, or pending longer than
 *    STUCK_TX_TIMEOUT_MS as the relayer's next transaction to be mined: record a replacement
 *    (same relayer nonce, higher fees), then broadcast it.
 */
export class PayoutLegDriver {
  constructor(private readonly deps: LegDriverDeps) {}

  async advance(leg: PayoutLegRow, context: LegContext): Promise<LegProgress> {
    if (leg.status === 'confirmed') return 'confirmed';
    const transactions = await this.deps.payouts.listTransactions(leg.id);
    if (transactions.length > 0) this.deps.crash('before-receipt');
    const used = await this.deps.chain.isAuthorizationUsed(getAddress(leg.fromAddress), leg.authorizationNonce as Hex);
    return used ? this.confirmPaid(leg, transactions, context) : this.pushUnpaid(leg, transactions, context);
  }

  private async confirmPaid(leg: PayoutLegRow, transactions: PayoutTransactionRow[], context: LegContext): Promise<LegProgress> {
    const { chain, payouts, settings } = this.deps;
    const use = await this.findUse(leg, transactions, context.depositBlock);
    // Used, yet no transaction shows it: the node's log index lags its state, or a reorg is
    // under way. Look again next round.
    if (!use) return 'in-flight';
    if ((await chain.blockNumber()) - use.blockNumber < BigInt(settings.confirmations)) return 'in-flight';
    const current = transactions.at(-1);
    if (current && !(await this.relayerNonceSpent(current.relayerNonce))) {
      // Someone relayed our signed authorization before our own transaction was mined. Ours must
      // still be mined (it will revert), or every later relayer nonce would wait behind the gap.
      if (!(await chain.isKnown(current.txHash as Hash))) await this.broadcast(current, 'rebroadcast');
      return 'in-flight';
    }
    await payouts.confirmLeg(leg.id, use.txHash, use.blockNumber);
    this.deps.metrics.legsConfirmed.inc({ leg: leg.leg });
    this.deps.log.info({ depositId: leg.depositId, leg: leg.leg, txHash: use.txHash }, 'payout leg confirmed');
    return 'confirmed';
  }

  private async findUse(leg: PayoutLegRow, transactions: PayoutTransactionRow[], depositBlock: bigint): Promise<AuthorizationUse | null> {
    const { chain } = this.deps;
    const from = getAddress(leg.fromAddress);
    for (const transaction of [...transactions].reverse()) {
      const receipt = await chain.receiptOf(transaction.txHash as Hash);
      if (receipt && chain.usedAuthorization(receipt, from, leg.authorizationNonce as Hex)) {
        return { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber };
      }
    }
    return chain.findAuthorizationUse(from, leg.authorizationNonce as Hex, depositBlock);
  }

  private async pushUnpaid(leg: PayoutLegRow, transactions: PayoutTransactionRow[], context: LegContext): Promise<LegProgress> {
    const current = await this.currentAuthorization(leg, context.signer);
    const latest = transactions.at(-1);
    if (!latest) {
      await this.sendUnderNewNonce(leg, current, 'initial');
      return 'in-flight';
    }
    const sameNonce = transactions.filter((transaction) => transaction.relayerNonce === latest.relayerNonce);
    const mined = await this.minedAmong(sameNonce);
    if (mined) {
      // Mined while the authorization is still unused: it reverted (authorization expired, or
      // the wallet lacks the funds) and spent its relayer nonce. A success here only means the
      // node's state lags its receipts; look again next round.
      if (mined.receipt.status === 'reverted') {
        await this.deps.payouts.markTransaction(mined.transaction.id, 'reverted');
        this.deps.log.warn({ depositId: leg.depositId, leg: leg.leg, txHash: mined.transaction.txHash }, 'payout transaction reverted; sending again');
        await this.sendUnderNewNonce(leg, current, 'new-nonce');
      }
      return 'in-flight';
    }
    const relayerMined = await this.relayerMinedCount();
    if (relayerMined > latest.relayerNonce) {
      // Spent by none of ours as far as the receipts said a moment ago; ask once more, since one
      // may have been mined in between, before concluding another transaction took the nonce.
      if (await this.minedAmong(sameNonce)) return 'in-flight';
      this.deps.log.warn(
        { depositId: leg.depositId, leg: leg.leg, relayerNonce: latest.relayerNonce.toString() },
        'relayer nonce was used by a transaction settlement did not record; sending under a new nonce',
      );
      await this.sendUnderNewNonce(leg, current, 'new-nonce');
      return 'in-flight';
    }
    if (parseTransaction(latest.rawTx as Hex).data !== this.calldata(current)) {
      await this.replace(leg, latest, current, 're-signed');
      return 'in-flight';
    }
    if (!(await this.deps.chain.isKnown(latest.txHash as Hash))) {
      await this.broadcast(latest, 'rebroadcast');
      return 'in-flight';
    }
    // Only the relayer's next transaction to be mined is bumped: one waiting behind another
    // would stay stuck at any fee, and bumping it again and again would only inflate its price.
    const atHead = relayerMined === latest.relayerNonce;
    if (atHead && Date.now() - latest.createdAt.getTime() >= this.deps.settings.stuckTxTimeoutMs) {
      await this.replace(leg, latest, current, 'fee-bump');
    }
    return 'in-flight';
  }

  /**
   * The leg's signed authorization, signing it first if needed: the first time, or when its
   * validBefore is close (renewed with the SAME nonce, so old and new signature can never both pay).
   */
  private async currentAuthorization(leg: PayoutLegRow, signer: LocalAccount): Promise<CurrentAuthorization> {
    const { settings, chain } = this.deps;
    // The token compares validBefore with block time; take the later of it and our clock.
    const wallClock = BigInt(Math.floor(Date.now() / 1000));
    const blockTime = await chain.latestTimestamp();
    const now = blockTime > wallClock ? blockTime : wallClock;
    const renewMargin = BigInt(Math.floor(settings.authorizationValiditySeconds / 4));
    const fresh = leg.validBefore - now > renewMargin;
    const validBefore = fresh ? leg.validBefore : now + BigInt(settings.authorizationValiditySeconds);
    const authorization: TransferAuthorization = {
      from: getAddress(leg.fromAddress),
      to: getAddress(leg.toAddress),
      value: leg.amount,
      validAfter: leg.validAfter,
      validBefore,
      nonce: leg.authorizationNonce as Hex,
    };
    if (leg.signature && fresh) return { authorization, signature: leg.signature as Hex };
    if (!leg.signature) this.deps.crash('before-sign');
    const { signature } = await signTransferAuthorization(signer, this.deps.chain.domain, authorization);
    await this.deps.payouts.saveSignature(leg.id, validBefore, signature);
    return { authorization, signature };
  }

  private calldata({ authorization, signature }: CurrentAuthorization): Hex {
    return encodeTransferWithAuthorization(authorization, splitSignature(signature));
  }

  private async sendUnderNewNonce(leg: PayoutLegRow, current: CurrentAuthorization, reason: PayoutTransactionReason): Promise<void> {
    const { chain, relayer, payouts } = this.deps;
    const data = this.calldata(current);
    const estimate = await chain.estimateGas(relayer.address, data);
    const gasLimit = estimate + (estimate * GAS_HEADROOM_PERCENT) / 100n;
    const fees = await chain.estimateFees();
    const transaction = await payouts.recordWithNewNonce({
      payoutId: leg.id,
      chainId: chain.chainId,
      relayerAddress: relayer.address,
      reason,
      readPendingNonce: () => chain.transactionCount(relayer.address, 'pending'),
      sign: (nonce) => relayer.sign({ to: chain.token, data, nonce, gasLimit, fees }),
    });
    await this.broadcast(transaction, reason);
  }

  private async replace(
    leg: PayoutLegRow,
    previous: PayoutTransactionRow,
    current: CurrentAuthorization,
    reason: PayoutTransactionReason,
  ): Promise<void> {
    const { chain, relayer, payouts } = this.deps;
    const fees = relayer.replacementFees(previous, await chain.estimateFees());
    const signed = await relayer.sign({
      to: chain.token,
      data: this.calldata(current),
      nonce: previous.relayerNonce,
      gasLimit: previous.gasLimit,
      fees,
    });
    const transaction = await payouts.recordReplacement({
      payoutId: leg.id,
      chainId: chain.chainId,
      relayerAddress: relayer.address,
      relayerNonce: previous.relayerNonce,
      reason,
      signed,
    });
    this.deps.log.warn(
      { depositId: leg.depositId, leg: leg.leg, replaced: previous.txHash, txHash: transaction.txHash, reason },
      'replacing payout transaction',
    );
    await this.broadcast(transaction, reason);
  }

  /**
   * Sends a recorded transaction. A refusal by the node is not an error here (it may know the
   * transaction already, the nonce may be spent, a replacement may be underpriced): the next
   * round reads the outcome off the chain. Only an unreachable node is thrown, for the caller's
   * back-off.
   */
  private async broadcast(transaction: PayoutTransactionRow, kind: RelayerSendKind): Promise<void> {
    this.deps.crash('before-broadcast');
    try {
      await this.deps.chain.sendRawTransaction(transaction.rawTx as Hex);
    } catch (error) {
      if (isTransportError(error)) throw error;
      this.deps.log.warn({ txHash: transaction.txHash, reason: (error as Error).message.split('\n')[0] }, 'node refused payout transaction');
      return;
    }
    this.deps.crash('after-broadcast');
    await this.deps.payouts.markTransaction(transaction.id, 'sent');
    this.deps.metrics.transactionsSent.inc({ kind });
  }

  private async relayerNonceSpent(relayerNonce: bigint): Promise<boolean> {
    return (await this.relayerMinedCount()) > relayerNonce;
  }

  /** Transactions of the relayer mined so far: every nonce below this is spent. */
  private relayerMinedCount(): Promise<bigint> {
    return this.deps.chain.transactionCount(this.deps.relayer.address, 'latest');
  }

  private async minedAmong(
    transactions: PayoutTransactionRow[],
  ): Promise<{ transaction: PayoutTransactionRow; receipt: TransactionReceipt } | undefined> {
    for (const transaction of transactions) {
      const receipt = await this.deps.chain.receiptOf(transaction.txHash as Hash);
      if (receipt) return { transaction, receipt };
    }
    return undefined;
  }
}
