import { getAddress, parseTransaction, type Address, type Hash, type Hex, type LocalAccount } from 'viem';
import { encodeCancelAuthorization, signCancelAuthorization } from '@gateway/chain';
import type {
  NewPayoutLeg,
  PayoutLegRow,
  PayoutRepository,
  PayoutTransactionRow,
  SettlementDeposit,
  SettlementRepository,
} from '@gateway/db/settlement-worker';
import { payoutAuthorizationNonce, type PayoutLegKind, type PlannedLeg } from '@gateway/domain';
import type { PayoutFinality } from '../legs/payout-finality';
import { depositPlan } from '../legs/payout-planner';
import type { RecordedBroadcast, LegTokenCall, RelayerOutbox } from '../chain/relayer-outbox';
import type { SettlementChainClient } from '../chain/settlement-chain-client';
import type { TemporaryWalletKeys } from '../chain/temporary-wallet-keys';

export interface ReplanSettings {
  /** Where the platform leg of a new plan goes (the worker's PLATFORM_FEE_ADDRESS as configured now). */
  platformFeeAddress: Address;
  authorizationValiditySeconds: number;
  /** How often the chain is read while the cancellations sink in. */
  pollIntervalMs: number;
  /** A cancellation pending this long at the head of the relayer's queue is sent again with higher fees. */
  stuckTxTimeoutMs: number;
}

export interface ReplanRun {
  /** How long this run waits for the cancellations to be final; running it again resumes. */
  timeoutMs: number;
  /** One line of progress for the operator. */
  report: (line: string) => void;
}

export interface ReplanDeps {
  settlements: SettlementRepository;
  payouts: PayoutRepository;
  chain: SettlementChainClient;
  outbox: RelayerOutbox;
  keys: TemporaryWalletKeys;
  finality: PayoutFinality;
  settings: ReplanSettings;
}

export type ReplanResult =
  | { result: 'not_found' }
  | { result: 'busy' }
  | { result: 'nothing_to_replan'; status: string }
  | { result: 'timed_out'; pending: PayoutLegKind[] }
  | { result: 'replanned'; depositId: string; paid: PayoutLegKind[]; replaced: NewPayoutLeg[] };

// How a leg of the old plan ended on chain.
type LegEnd = 'paid' | 'cancelled' | 'pending';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Gives a deposit that needs attention a new plan, once whatever made it fail is fixed (the
 * merchant's payout address changed or taken off the blacklist, the fee address configured anew,
 * the wallet topped up). Exactly once, as settlement itself:
 *  1. It holds the deposit's lock, so no worker drives the deposit meanwhile.
 *  2. Each unpaid leg of the old plan is ended on chain before anything new exists: its
 *     authorization is cancelled (cancelAuthorization signed by the temporary wallet's key, relayed
 *     like a payout, recorded before it is broadcast), unless it was never signed. A leg whose
 *     authorization turns out to have been used is paid: it is confirmed, not re-planned.
 *  3. Only when every cancellation is final (the payouts' finality rule) does one transaction mark
 *     the old legs cancelled, write new legs with fresh nonces as the deposit's plan has them now
 *     (payout-plan: the wallet's terms, PLATFORM_FEE_ADDRESS; a leg rewritten in the database is
 *     planned again from the terms, one the terms do not have is not), each naming the leg it
 *     replaces, and put the deposit back to forwarding. The old authorizations can then never pay.
 * Its relayer transactions go through the RelayerOutbox, as payouts do: recorded before they are
 * broadcast, with the same crash points and metrics.
 * Interrupted or timed out, it is run again: recorded cancellations are looked up, not sent twice.
 */
export class DepositReplanner {
  constructor(private readonly deps: ReplanDeps) {}

  async replan(depositId: string, run: ReplanRun): Promise<ReplanResult> {
    const lock = await this.deps.settlements.tryLockDeposit(depositId);
    if (!lock) return { result: 'busy' };
    try {
      return await this.replanLocked(depositId, run);
    } finally {
      await lock.release();
    }
  }

  private async replanLocked(depositId: string, { timeoutMs, report }: ReplanRun): Promise<ReplanResult> {
    const { settlements, payouts, keys, settings } = this.deps;
    const deposit = await settlements.findDeposit(depositId);
    if (!deposit) return { result: 'not_found' };
    const legs = await payouts.listLegs(depositId);
    const waitsForPerson = deposit.status === 'needs_attention';
    if (!waitsForPerson && !(deposit.status === 'forwarded' && legs.some((leg) => leg.status === 'needs_attention'))) {
      return { result: 'nothing_to_replan', status: deposit.status };
    }
    // A deposit in needs_attention is driven by nobody: every unpaid leg is re-planned. A forwarded one keeps
    // its legs in flight with the worker; only those needing attention are.
    const old = legs.filter((leg) => (waitsForPerson ? leg.status !== 'confirmed' : leg.status === 'needs_attention'));
    const signer = keys.accountAt(deposit.hdIndex, deposit.temporaryAddress);
    const deadline = Date.now() + timeoutMs;
    let ends: LegEnd[];
    for (;;) {
      ends = [];
      for (const leg of old) ends.push(await this.endOnChain(leg, deposit, signer, report));
      if (!ends.includes('pending')) break;
      if (Date.now() > deadline) return { result: 'timed_out', pending: old.filter((_, i) => ends[i] === 'pending').map((leg) => leg.leg) };
      await sleep(settings.pollIntervalMs);
    }
    const cancelled = old.filter((_, i) => ends[i] === 'cancelled');
    const plan = depositPlan(deposit, settings.platformFeeAddress);
    const replaced = cancelled.flatMap((leg) => this.newLeg(deposit, legs, leg, plan) ?? []);
    if (
      !(await settlements.replan(
        depositId,
        cancelled.map((leg) => leg.id),
        replaced,
      ))
    ) {
      throw new Error(`deposit ${depositId} or one of its legs changed while it was being re-planned; run replan again`);
    }
    for (const leg of replaced) report(`${leg.leg} leg: new plan, ${leg.amount} base units to ${leg.toAddress.toLowerCase()}`);
    return { result: 'replanned', depositId, paid: old.filter((_, i) => ends[i] === 'paid').map((leg) => leg.leg), replaced };
  }

  /** Where an unpaid leg of the old plan stands on chain, moving it on: confirm it, or cancel its authorization. */
  private async endOnChain(
    leg: PayoutLegRow,
    deposit: SettlementDeposit,
    signer: LocalAccount,
    report: ReplanRun['report'],
  ): Promise<LegEnd> {
    const { chain, payouts, finality } = this.deps;
    const from = getAddress(leg.fromAddress);
    const nonce = leg.authorizationNonce as Hex;
    if (await chain.isAuthorizationUsed(from, nonce)) {
      const use = await chain.findAuthorizationUse(from, nonce, deposit.blockNumber);
      if (use) {
        if (!(await finality.isFinal(use))) return 'pending';
        await payouts.confirmLeg(leg.id, use.txHash, use.blockNumber);
        report(`${leg.leg} leg: its authorization was used after all (tx ${use.txHash}); confirmed, not re-planned`);
        return 'paid';
      }
      const cancellation = await chain.findCancellation(from, nonce, deposit.blockNumber);
      // Neither log yet: the node's log index lags its state. Look again.
      if (!cancellation || !(await finality.isFinal(cancellation))) return 'pending';
      await this.recordCancellationMined(leg, cancellation.txHash);
      return 'cancelled';
    }
    const transactions = await payouts.listTransactions(leg.id);
    // Never signed: no signature exists that could pay it, nothing to cancel.
    if (!leg.signature && transactions.length === 0) return 'cancelled';
    const cancellations = transactions.filter((transaction) => transaction.reason === 'cancel' && transaction.status !== 'reverted');
    const latest = cancellations.at(-1);
    if (!latest) {
      await this.sendCancellation(leg, signer, report);
      return 'pending';
    }
    await this.pushCancellation(leg, latest, cancellations, report);
    return 'pending';
  }

  /** Our cancellation that was mined (if it was ours: the key's holder may have cancelled first), the others replaced. */
  private async recordCancellationMined(leg: PayoutLegRow, txHash: Hash): Promise<void> {
    for (const transaction of await this.deps.payouts.listTransactions(leg.id)) {
      if (transaction.reason !== 'cancel') continue;
      await this.deps.payouts.markTransaction(transaction.id, transaction.txHash === txHash.toLowerCase() ? 'mined' : 'replaced');
    }
  }

  private async sendCancellation(leg: PayoutLegRow, signer: LocalAccount, report: ReplanRun['report']): Promise<void> {
    const { chain, outbox } = this.deps;
    const from = getAddress(leg.fromAddress);
    const data = encodeCancelAuthorization(
      from,
      leg.authorizationNonce as Hex,
      await signCancelAuthorization(signer, chain.domain, from, leg.authorizationNonce as Hex),
    );
    // The outbox estimates it first: a token that refuses the cancellation (paused) costs no gas and says why.
    const sent = await outbox.send(this.cancellation(leg, data), 'cancel');
    report(`${leg.leg} leg: cancelling its authorization (tx ${sent.transaction.txHash})`);
    this.reportRefusal(sent, report);
  }

  /** A recorded cancellation not known to be mined: read its receipt, send it again, or re-price it. */
  private async pushCancellation(
    leg: PayoutLegRow,
    latest: PayoutTransactionRow,
    cancellations: PayoutTransactionRow[],
    report: ReplanRun['report'],
  ): Promise<void> {
    const { chain, outbox, payouts, settings } = this.deps;
    const sameNonce = cancellations.filter((transaction) => transaction.relayerNonce === latest.relayerNonce);
    for (const transaction of sameNonce) {
      const receipt = await chain.receiptOf(transaction.txHash as Hash);
      if (!receipt) continue;
      // Mined: the next look at the authorization's state tells cancelled (success) from used
      // (reverted: the old transfer was mined first), or sends a new cancellation (reverted otherwise).
      await payouts.markTransaction(transaction.id, receipt.status === 'success' ? 'mined' : 'reverted');
      return;
    }
    const relayerMined = await outbox.minedCount();
    if (relayerMined > latest.relayerNonce) {
      // Another transaction took the relayer nonce: this cancellation will never be mined.
      for (const transaction of sameNonce) await payouts.markTransaction(transaction.id, 'replaced');
      return;
    }
    if (!(await chain.isKnown(latest.txHash as Hash))) {
      const refused = await outbox.broadcast(latest, 'cancel-rebroadcast');
      this.reportRefusal({ transaction: latest, refused }, report);
      return;
    }
    const atHead = relayerMined === latest.relayerNonce;
    if (!atHead || Date.now() - latest.createdAt.getTime() < settings.stuckTxTimeoutMs) return;
    const data = parseTransaction(latest.rawTx as Hex).data ?? '0x';
    const replacement = await outbox.replace(this.cancellation(leg, data), latest, 'cancel-fee-bump');
    if (!replacement) return;
    report(`${leg.leg} leg: cancellation pending too long, sent again with higher fees (tx ${replacement.transaction.txHash})`);
    this.reportRefusal(replacement, report);
  }

  private cancellation(leg: PayoutLegRow, data: Hex): LegTokenCall {
    return { payoutId: leg.id, depositId: leg.depositId, leg: leg.leg, reason: 'cancel', data };
  }

  /** A refusal is read off the chain on the next look; the operator is told of it now. */
  private reportRefusal({ transaction, refused }: RecordedBroadcast, report: ReplanRun['report']): void {
    if (refused !== undefined) report(`the node refused tx ${transaction.txHash}: ${refused}`);
  }

  /**
   * The leg of the new plan taking over from `old`: the plan's leg of the same kind (recipient and
   * amount from the wallet's terms now), under the nonce of the next generation of its kind (one per
   * leg of that kind the deposit had: a new nonce, and the same one again if this replan is redone on
   * a restored backup); undefined when the terms have no such leg.
   */
  private newLeg(
    deposit: SettlementDeposit,
    legsOfDeposit: readonly PayoutLegRow[],
    old: PayoutLegRow,
    plan: readonly PlannedLeg[],
  ): NewPayoutLeg | undefined {
    const planned = plan.find((leg) => leg.kind === old.leg);
    if (!planned) return undefined;
    return {
      leg: planned.kind,
      fromAddress: planned.from,
      toAddress: planned.to,
      amount: planned.amount,
      authorizationNonce: payoutAuthorizationNonce({
        chainId: deposit.chainId,
        depositTxHash: deposit.txHash,
        depositLogIndex: deposit.logIndex,
        leg: planned.kind,
        generation: legsOfDeposit.filter((leg) => leg.leg === old.leg).length,
      }),
      validBefore: BigInt(Math.floor(Date.now() / 1000) + this.deps.settings.authorizationValiditySeconds),
      replacesPayoutId: old.id,
    };
  }
}
