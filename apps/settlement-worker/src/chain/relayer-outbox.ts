import type { Hash, Hex } from 'viem';
import type { PayoutLegKind } from '@gateway/domain';
import type { PayoutRepository, PayoutTransactionReason, PayoutTransactionRow } from '@gateway/db/settlement-worker';
import type { FastifyBaseLogger } from 'fastify';
import type { RelayerSendKind, SettlementMetrics } from '../metrics';
import { classifyTokenRevert, isTransportError } from './chain-errors';
import type { CrashHook } from '../crash-points';
import type { Relayer } from './relayer';
import type { SettlementChainClient } from './settlement-chain-client';

export interface RelayerOutboxDeps {
  payouts: PayoutRepository;
  chain: SettlementChainClient;
  relayer: Relayer;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
  crash: CrashHook;
}

/** A call to the token the relayer is to carry for a leg: a transfer's authorization, or its cancellation. */
export interface LegTokenCall {
  payoutId: string;
  depositId: string;
  leg: PayoutLegKind;
  reason: PayoutTransactionReason;
  data: Hex;
}

/** A recorded transaction and what became of its broadcast: `refused` holds the node's words when it did not take it. */
export interface RecordedBroadcast {
  transaction: PayoutTransactionRow;
  refused?: string;
}

// eth_estimateGas is exact for the state it ran against; a recipient's balance can change before
// the transaction lands (the first USDC it receives costs a fresh storage slot).
const GAS_HEADROOM_PERCENT = 25n;

/**
 * Every transaction the relayer sends for a leg (a payout, or the cancellation of one) goes through
 * here: estimate its gas, sign it under a relayer nonce allocated in PostgreSQL, RECORD it (raw bytes
 * and hash), and only then broadcast it and mark it sent. Whoever resumes after a crash at any point
 * finds the transaction recorded and can send the same bytes again; nothing reaches the chain
 * unrecorded. The crash points (before-broadcast, after-broadcast) and the metrics
 * (settlement_relayer_transactions_total{kind}, settlement_fee_ceiling_total) are the same for the
 * settlement worker's payouts and for the replan command's cancellations.
 */
export class RelayerOutbox {
  // Stuck transactions already reported as held at the fee ceiling (reporting only, no decision).
  private readonly reportedAtCeiling = new Set<string>();

  constructor(private readonly deps: RelayerOutboxDeps) {}

  /**
   * Records `call` under the relayer's next nonce and broadcasts it. Its gas is estimated first, so
   * a token that refuses the call costs no gas and the revert is thrown for the caller to judge.
   */
  async send(call: LegTokenCall, kind: RelayerSendKind): Promise<RecordedBroadcast> {
    const { chain, relayer, payouts } = this.deps;
    const estimate = await chain.estimateGas(relayer.address, call.data);
    const gasLimit = estimate + (estimate * GAS_HEADROOM_PERCENT) / 100n;
    const { fees, capped } = relayer.firstFees(await chain.estimateFees());
    const transaction = await payouts.recordWithNewNonce({
      payoutId: call.payoutId,
      chainId: chain.chainId,
      relayerAddress: relayer.address,
      reason: call.reason,
      readPendingNonce: () => chain.transactionCount(relayer.address, 'pending'),
      sign: (nonce) => relayer.sign({ to: chain.token, data: call.data, nonce, gasLimit, fees }),
    });
    if (capped) this.signedAtCeiling(call, transaction);
    return { transaction, refused: await this.broadcast(transaction, kind) };
  }

  /**
   * Records a transaction in place of `previous` (same relayer nonce and gas limit, fees raised by
   * the bump or to today's estimate) carrying `call`, and broadcasts it. Undefined when the most the
   * fee ceiling allows is not a replacement a node would take: `previous` is left as it is.
   */
  async replace(call: LegTokenCall, previous: PayoutTransactionRow, kind: RelayerSendKind): Promise<RecordedBroadcast | undefined> {
    const { chain, relayer, payouts, log } = this.deps;
    const priced = relayer.replacementFees(previous, await chain.estimateFees());
    if (!priced) {
      this.heldAtCeiling(call, previous);
      return undefined;
    }
    const signed = await relayer.sign({
      to: chain.token,
      data: call.data,
      nonce: previous.relayerNonce,
      gasLimit: previous.gasLimit,
      fees: priced.fees,
    });
    const transaction = await payouts.recordReplacement({
      payoutId: call.payoutId,
      chainId: chain.chainId,
      relayerAddress: relayer.address,
      relayerNonce: previous.relayerNonce,
      reason: call.reason,
      signed,
    });
    log.warn(
      { depositId: call.depositId, leg: call.leg, replaced: previous.txHash, txHash: transaction.txHash, reason: call.reason },
      'replacing relayer transaction',
    );
    if (priced.capped) this.signedAtCeiling(call, transaction);
    return { transaction, refused: await this.broadcast(transaction, kind) };
  }

  /**
   * Sends a recorded transaction and marks it sent; returns the node's words when it refused it.
   * A refusal is not an error (the node may know the transaction already, its nonce may be spent,
   * a replacement may be underpriced): the next look at the chain reads the outcome. Thrown: an
   * unreachable node, for the caller's back-off, and the token's revert from a node that simulates
   * what it is sent, for the caller to judge.
   */
  async broadcast(transaction: PayoutTransactionRow, kind: RelayerSendKind): Promise<string | undefined> {
    const { chain, payouts, metrics, log, crash } = this.deps;
    crash('before-broadcast');
    try {
      await chain.sendRawTransaction(transaction.rawTx as Hex);
    } catch (error) {
      if (isTransportError(error) || classifyTokenRevert(error)) throw error;
      const refused = (error as Error).message.split('\n')[0] ?? 'refused';
      log.warn({ txHash: transaction.txHash, reason: refused }, 'node refused relayer transaction');
      return refused;
    }
    crash('after-broadcast');
    await payouts.markTransaction(transaction.id, 'sent');
    metrics.transactionsSent.inc({ kind });
    return undefined;
  }

  /**
   * A transfer of nothing from the relayer to itself under `relayerNonce`, unrecorded: it spends a
   * nonce that a transaction of ours held but will never use (the node dropped it after someone else
   * paid its leg), so the relayer's later transactions are not stuck behind the gap. Its hash, or
   * undefined when the node refused it (sent already, or the nonce was spent meanwhile: nothing to fill).
   */
  async fillNonce(relayerNonce: bigint): Promise<Hash | undefined> {
    const { chain, relayer, metrics, log } = this.deps;
    const filler = await relayer.signNonceFiller(relayerNonce, await chain.estimateFees());
    try {
      await chain.sendRawTransaction(filler.rawTx as Hex);
    } catch (error) {
      if (isTransportError(error)) throw error;
      log.warn({ txHash: filler.txHash, reason: (error as Error).message.split('\n')[0] }, 'node refused the relayer nonce filler');
      return undefined;
    }
    metrics.transactionsSent.inc({ kind: 'nonce-filler' });
    return filler.txHash as Hash;
  }

  /** Transactions of the relayer mined so far: every relayer nonce below this is spent. */
  minedCount(): Promise<bigint> {
    return this.deps.chain.transactionCount(this.deps.relayer.address, 'latest');
  }

  private signedAtCeiling(call: LegTokenCall, transaction: PayoutTransactionRow): void {
    this.deps.metrics.feeCeiling.inc({ outcome: 'capped' });
    this.deps.log.warn(
      { depositId: call.depositId, leg: call.leg, txHash: transaction.txHash, maxFeePerGas: transaction.maxFeePerGas, reason: call.reason },
      'relayer transaction signed at the fee ceiling (MAX_FEE_PER_GAS_GWEI), below what the fee estimate asked',
    );
  }

  /** Said once per transaction: it is asked again every round while the transaction stays stuck. */
  private heldAtCeiling(call: LegTokenCall, stuck: PayoutTransactionRow): void {
    if (this.reportedAtCeiling.has(stuck.txHash)) return;
    this.reportedAtCeiling.add(stuck.txHash);
    this.deps.metrics.feeCeiling.inc({ outcome: 'held' });
    this.deps.log.warn(
      { depositId: call.depositId, leg: call.leg, txHash: stuck.txHash, maxFeePerGas: stuck.maxFeePerGas, reason: call.reason },
      'relayer transaction is at the fee ceiling (MAX_FEE_PER_GAS_GWEI); not replacing it, it waits for fees to fall or the ceiling to ' +
        'rise',
    );
  }
}
