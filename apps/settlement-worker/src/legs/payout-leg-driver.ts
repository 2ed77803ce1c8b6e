import { getAddress, parseTransaction, type Hash, type Hex, type LocalAccount, type TransactionReceipt } from 'viem';
import { encodeTransferWithAuthorization, signTransferAuthorization, splitSignature, type TransferAuthorization } from '@gateway/chain';
import type { PayoutLegRow, PayoutRepository, PayoutTransactionReason, PayoutTransactionRow } from '@gateway/db/settlement-worker';
import { legMismatch, type NeedsAttentionReason } from '@gateway/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { CrashHook } from '../crash-points';
import { IN_FLIGHT, type DepositRound, type LegResult } from './deposit-round';
import type { AuthorizationUse, SettlementChainClient } from '../chain/settlement-chain-client';
import type { PayoutFinality } from './payout-finality';
import { LegFailureClassifier } from './leg-failure';
import type { LegTokenCall, RelayerOutbox } from '../chain/relayer-outbox';
import type { SettlementMetrics } from '../metrics';

// The transactions this driver sends for a leg (a cancellation is the replan command's).
type LegTransactionReason = Exclude<PayoutTransactionReason, 'cancel'>;

export interface LegDriverSettings {
  stuckTxTimeoutMs: number;
  authorizationValiditySeconds: number;
}

export interface LegDriverDeps {
  payouts: PayoutRepository;
  chain: SettlementChainClient;
  /** When the paying transaction counts as final (the chain watcher's rule). */
  finality: PayoutFinality;
  outbox: RelayerOutbox;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
  crash: CrashHook;
  settings: LegDriverSettings;
}

interface CurrentAuthorization {
  authorization: TransferAuthorization;
  signature: Hex;
}

/**
 * Moves one payout leg one step closer to paid, from what the chain and the database say now.
 * It keeps no state between calls that decides anything: a new process, or the same one after
 * any failure, calls it again and it picks up where things are.
 *
 * Why a leg is paid at most once: its EIP-3009 authorization nonce is fixed when the leg is
 * planned and every signature of the leg (including renewals of an expired validBefore) uses it,
 * so the token executes at most one of them however many relayer transactions carry them.
 * Why it is paid to whom the wallet's terms say: before anything is signed or sent for an unpaid
 * leg, its row is compared with the plan derived again from the wallet (payout-plan); a leg that
 * differs (recipient, amount, temporary wallet: rewritten by whoever could write to `payouts`)
 * moves to needs_attention (plan_mismatch) and nothing is signed or sent for it.
 * Why it is paid at least once: every relayer transaction is recorded (raw, with its hash and
 * relayer nonce) before it is broadcast (RelayerOutbox), and each call re-reads the chain:
 *  - authorization used: find the paying transaction (our receipts, else its AuthorizationUsed
 *    log, e.g. someone else relayed our signature) and confirm the leg with it once it is final
 *    (PayoutFinality); ours is never sent again, and a relayer nonce it leaves unspent is filled;
 *  - not used, nothing recorded: sign (if needed), record with a fresh relayer nonce, broadcast;
 *  - our transaction mined but reverted, or its relayer nonce taken by another transaction:
 *    record a new transaction under a new relayer nonce;
 *  - recorded but unknown to the node (never sent, or dropped): broadcast the same raw bytes;
 *  - carrying an authorization that had to be renewed, or pending longer than
 *    STUCK_TX_TIMEOUT_MS as the relayer's next transaction to be mined: record a replacement
 *    (same relayer nonce, higher fees), then broadcast it.
 * A leg the token will refuse however often it is sent (a blacklisted address, its authorization
 * cancelled, the wallet short of the amount: see LegFailureClassifier) moves to needs_attention and
 * nothing more is sent for it; the replan command takes it from there.
 */
export class PayoutLegDriver {
  private readonly failures: LegFailureClassifier;

  constructor(private readonly deps: LegDriverDeps) {
    this.failures = new LegFailureClassifier(deps.chain);
  }

  /** One step for `leg`, one of `round`'s legs as the round read it; returns where the step left it. */
  async advance(leg: PayoutLegRow, round: DepositRound): Promise<LegResult> {
    if (leg.status === 'confirmed') return { outcome: 'confirmed', txHash: leg.txHash };
    if (leg.status === 'needs_attention') return { outcome: 'needs_attention', reason: leg.attentionReason, detail: leg.attentionDetail };
    const mismatch = legMismatch(round.plan, { kind: leg.leg, from: leg.fromAddress, to: leg.toAddress, amount: leg.amount });
    if (mismatch) return this.needAttention(leg, 'plan_mismatch', mismatch);
    try {
      const transactions = await this.deps.payouts.listTransactions(leg.id);
      if (transactions.length > 0) this.deps.crash('before-receipt');
      const used = await this.deps.chain.isAuthorizationUsed(getAddress(leg.fromAddress), leg.authorizationNonce as Hex);
      return used
        ? await this.confirmPaid(leg, transactions, round.deposit.blockNumber)
        : await this.pushUnpaid(leg, transactions, round.signer);
    } catch (error) {
      return this.onRoundFailed(leg, error);
    }
  }

  /**
   * A round of the leg failed. A token revert that no retry changes (estimating the gas of the
   * transfer, after our transaction was mined and reverted, or a node refusing the broadcast) moves
   * the leg to needs_attention; a paused token is counted and retried with back-off; anything else is thrown for the
   * caller's retry.
   */
  private async onRoundFailed(leg: PayoutLegRow, error: unknown): Promise<LegResult> {
    const failure = await this.failures.classify(leg, error);
    if (failure.action === 'retry') throw error;
    if (failure.action === 'wait') {
      this.deps.metrics.legWaits.inc({ reason: failure.reason });
      this.deps.log.warn(
        { depositId: leg.depositId, leg: leg.leg, reason: failure.reason },
        'the token refuses every transfer for now; payout leg waits',
      );
      throw error;
    }
    return this.needAttention(leg, failure.reason, failure.detail);
  }

  private async needAttention(leg: PayoutLegRow, reason: NeedsAttentionReason, detail: string): Promise<LegResult> {
    if (!(await this.deps.payouts.markLegNeedsAttention(leg.id, reason, detail))) return IN_FLIGHT;
    this.deps.metrics.needsAttention.inc({ reason });
    this.deps.log.error(
      { depositId: leg.depositId, leg: leg.leg, to: leg.toAddress, reason, detail },
      'payout leg will not succeed however often it is sent; it needs attention (replan)',
    );
    return { outcome: 'needs_attention', reason, detail };
  }

  private async confirmPaid(leg: PayoutLegRow, transactions: PayoutTransactionRow[], depositBlock: bigint): Promise<LegResult> {
    const { payouts } = this.deps;
    const use = await this.findUse(leg, transactions, depositBlock);
    if (!use) {
      // Spent without paying the leg: someone holding the temporary wallet's key cancelled it.
      const from = getAddress(leg.fromAddress);
      if (await this.deps.chain.findCancellation(from, leg.authorizationNonce as Hex, depositBlock)) {
        return this.needAttention(leg, 'authorization_cancelled', 'FiatTokenV2: authorization is used or canceled (AuthorizationCanceled)');
      }
      // Used, yet no transaction shows it: the node's log index lags its state, or a reorg is
      // under way. Look again next round.
      return IN_FLIGHT;
    }
    if (!(await this.deps.finality.isFinal(use))) return IN_FLIGHT;
    await this.releaseRelayerNonce(leg, transactions);
    await payouts.confirmLeg(leg.id, use.txHash, use.blockNumber);
    this.deps.metrics.legsConfirmed.inc({ leg: leg.leg });
    this.deps.log.info({ depositId: leg.depositId, leg: leg.leg, txHash: use.txHash }, 'payout leg confirmed');
    return { outcome: 'confirmed', txHash: use.txHash.toLowerCase() };
  }

  /**
   * A leg paid by someone else's transaction (our signed authorization, relayed by whoever saw
   * it) leaves our own transaction unable to pay: it is never sent again. Its relayer nonce still
   * matters, as every later relayer transaction waits behind it: a transaction of ours that holds
   * it and is still in the node's pool will be mined (and revert, at the cost of its gas); if
   * none is (the node dropped it), a 0-value transfer to the relayer itself spends the nonce.
   * Sent before the leg is confirmed, so a crash in between sends it again rather than never.
   */
  private async releaseRelayerNonce(leg: PayoutLegRow, transactions: PayoutTransactionRow[]): Promise<void> {
    const { chain, outbox, log } = this.deps;
    const current = transactions.at(-1);
    if (!current || (await outbox.minedCount()) > current.relayerNonce) return;
    for (const holder of transactions.filter((transaction) => transaction.relayerNonce === current.relayerNonce)) {
      if (await chain.isKnown(holder.txHash as Hash)) return;
    }
    const filler = await outbox.fillNonce(current.relayerNonce);
    if (!filler) return;
    log.warn(
      { depositId: leg.depositId, leg: leg.leg, relayerNonce: current.relayerNonce.toString(), txHash: filler },
      'leg paid by a transaction someone else relayed; our dropped one is not sent again, a 0-value transfer takes its relayer nonce',
    );
  }

  private async findUse(leg: PayoutLegRow, transactions: PayoutTransactionRow[], depositBlock: bigint): Promise<AuthorizationUse | null> {
    const { chain } = this.deps;
    const from = getAddress(leg.fromAddress);
    for (const transaction of [...transactions].reverse()) {
      const receipt = await chain.receiptOf(transaction.txHash as Hash);
      if (receipt && chain.usedAuthorization(receipt, from, leg.authorizationNonce as Hex)) {
        return { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
      }
    }
    return chain.findAuthorizationUse(from, leg.authorizationNonce as Hex, depositBlock);
  }

  private async pushUnpaid(leg: PayoutLegRow, transactions: PayoutTransactionRow[], signer: LocalAccount): Promise<LegResult> {
    const current = await this.currentAuthorization(leg, signer);
    const latest = transactions.at(-1);
    if (!latest) {
      await this.sendUnderNewNonce(leg, current, 'initial');
      return IN_FLIGHT;
    }
    const sameNonce = transactions.filter((transaction) => transaction.relayerNonce === latest.relayerNonce);
    const mined = await this.minedAmong(sameNonce);
    if (mined) {
      // Mined while the authorization is still unused: it reverted (authorization expired, or
      // the wallet lacks the funds) and spent its relayer nonce. A success here only means the
      // node's state lags its receipts; look again next round.
      if (mined.receipt.status === 'reverted') {
        await this.deps.payouts.markTransaction(mined.transaction.id, 'reverted');
        this.deps.log.warn(
          { depositId: leg.depositId, leg: leg.leg, txHash: mined.transaction.txHash },
          'payout transaction reverted; sending again',
        );
        await this.sendUnderNewNonce(leg, current, 'new-nonce');
      }
      return IN_FLIGHT;
    }
    const relayerMined = await this.deps.outbox.minedCount();
    if (relayerMined > latest.relayerNonce) {
      // Spent by none of ours as far as the receipts said a moment ago; ask once more, since one
      // may have been mined in between, before concluding another transaction took the nonce.
      if (await this.minedAmong(sameNonce)) return IN_FLIGHT;
      this.deps.log.warn(
        { depositId: leg.depositId, leg: leg.leg, relayerNonce: latest.relayerNonce.toString() },
        'relayer nonce was used by a transaction settlement did not record; sending under a new nonce',
      );
      await this.sendUnderNewNonce(leg, current, 'new-nonce');
      return IN_FLIGHT;
    }
    if (parseTransaction(latest.rawTx as Hex).data !== this.calldata(current)) {
      await this.replace(leg, latest, current, 're-signed');
      return IN_FLIGHT;
    }
    if (!(await this.deps.chain.isKnown(latest.txHash as Hash))) {
      await this.deps.outbox.broadcast(latest, 'rebroadcast');
      return IN_FLIGHT;
    }
    // Only the relayer's next transaction to be mined is bumped: one waiting behind another
    // would stay stuck at any fee, and bumping it again and again would only inflate its price.
    const atHead = relayerMined === latest.relayerNonce;
    if (atHead && Date.now() - latest.createdAt.getTime() >= this.deps.settings.stuckTxTimeoutMs) {
      await this.replace(leg, latest, current, 'fee-bump');
    }
    return IN_FLIGHT;
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

  /** The relayer call carrying the leg's current authorization. */
  private callFor(leg: PayoutLegRow, current: CurrentAuthorization, reason: LegTransactionReason): LegTokenCall {
    return { payoutId: leg.id, depositId: leg.depositId, leg: leg.leg, reason, data: this.calldata(current) };
  }

  private async sendUnderNewNonce(leg: PayoutLegRow, current: CurrentAuthorization, reason: LegTransactionReason): Promise<void> {
    await this.deps.outbox.send(this.callFor(leg, current, reason), reason);
  }

  /** Same relayer nonce as `previous`, higher fees; left as it is when the fee ceiling allows no replacement. */
  private async replace(
    leg: PayoutLegRow,
    previous: PayoutTransactionRow,
    current: CurrentAuthorization,
    reason: LegTransactionReason,
  ): Promise<void> {
    await this.deps.outbox.replace(this.callFor(leg, current, reason), previous, reason);
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
