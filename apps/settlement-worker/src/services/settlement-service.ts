import { randomUUID } from 'node:crypto';
import type { Address } from 'viem';
import type { FastifyBaseLogger } from 'fastify';
import {
  legHoldsDepositBack,
  merchantLegConfirmed,
  payoutOfDeposit,
  roundOutcome,
  type PayoutLegKind,
  type PlannedLeg,
  type SettlementOutcome,
} from '@gateway/domain';
import type { PayoutLegRow, PayoutRepository, SettlementDeposit, SettlementRepository } from '@gateway/db/settlement-worker';
import type { SettlementMetrics } from '../metrics';
import { isChainError } from '../chain/chain-errors';
import type { DepositRound, LegResult } from '../legs/deposit-round';
import type { PayoutLegDriver } from '../legs/payout-leg-driver';
import type { PayoutCosting } from '../legs/payout-costing';
import { depositPlan, PayoutPlanner } from '../legs/payout-planner';
import type { TemporaryWalletKeys } from '../chain/temporary-wallet-keys';

/** Puts a callback delivery on the callback queue (idempotent: job id = delivery id). */
export interface CallbackEnqueuer {
  enqueue(deliveryId: string): Promise<void>;
}

export interface SettlementServiceSettings {
  platformFeeAddress: Address;
  /** The token settlement pays out in (USDC_TOKEN_ADDRESS): a deposit in any other is held for the operator. */
  settledToken: Address;
  dustThreshold: bigint;
  authorizationValiditySeconds: number;
}

export interface SettlementServiceDeps {
  settlements: SettlementRepository;
  payouts: PayoutRepository;
  legs: PayoutLegDriver;
  keys: TemporaryWalletKeys;
  callbacks: CallbackEnqueuer;
  costing: PayoutCosting;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
  settings: SettlementServiceSettings;
}

export class DepositNotFound extends Error {
  constructor(depositId: string) {
    super(`deposit ${depositId} does not exist`);
    this.name = 'DepositNotFound';
  }
}

/**
 * Forwards one final deposit, exactly once, one round per call (one run of its job):
 *  1. Only one worker at a time works on a deposit (an advisory lock held for the run, on top of
 *     BullMQ's job id = deposit id); each state change is also guarded by the status it starts from.
 *  2. Planning, before anything is signed, is one database transaction: the deposit goes
 *     final -> forwarding and its legs are written from its wallet's terms (depositPlan), each with
 *     the EIP-3009 nonce its identity gives (payoutAuthorizationNonce) and a validBefore. A deposit below the dust threshold, or whose
 *     platform fee is worth less than the gas of its payout, goes final -> held instead.
 *  3. A round reads the deposit and its legs once (DepositRound), derives the plan from the
 *     wallet's terms again (once), and moves each unconfirmed leg one step with PayoutLegDriver (see
 *     there for why a leg is paid exactly once, and only as the plan says), which returns where it
 *     left the leg; then it gives the deposit back: 'in_flight' asks for another run later, so no
 *     worker slot or lock is held while a payout waits to be final.
 *  4. Once the merchant's leg is confirmed, one transaction marks the deposit forwarded and writes
 *     its callback delivery; after the commit the callback job is enqueued (the callback worker's
 *     reconciler covers a crash in between). The fee and affiliate legs do not hold the merchant's
 *     callback back: later runs drive them until they are confirmed too.
 * Any step can be interrupted (process killed, RPC down): running the job again resumes it.
 */
export class SettlementService {
  private readonly planner: PayoutPlanner;

  constructor(private readonly deps: SettlementServiceDeps) {
    this.planner = new PayoutPlanner(deps.settings);
  }

  /** One run: plans the deposit if it is final, then one round over its legs; busy while another worker has it. */
  async settle(depositId: string): Promise<SettlementOutcome> {
    const lock = await this.deps.settlements.tryLockDeposit(depositId);
    if (!lock) return 'busy';
    try {
      return await this.settleLocked(depositId);
    } finally {
      await lock.release();
    }
  }

  private async settleLocked(depositId: string): Promise<SettlementOutcome> {
    const { settlements, log } = this.deps;
    const deposit = await settlements.findDeposit(depositId);
    if (!deposit) throw new DepositNotFound(depositId);
    switch (deposit.status) {
      case 'seen':
        return 'not_final';
      case 'orphaned':
        log.warn({ depositId }, 'deposit was orphaned by a reorg; nothing to forward');
        return 'orphaned';
      case 'held':
      case 'held_for_operator':
      // Paid by the operator by hand (`gateway deposits paid-by-hand`): nothing left for settlement.
      case 'paid_by_operator':
        return 'held';
      // Waits for a person; the replan command queues the job again.
      case 'needs_attention':
        return 'needs_attention';
      case 'forwarded':
        await this.enqueuePendingCallback(depositId);
        break;
      case 'final': {
        if (deposit.token !== null && deposit.token !== this.deps.settings.settledToken.toLowerCase()) {
          await this.holdForOperator(deposit);
          return 'held';
        }
        const planned = await this.plan(deposit);
        return typeof planned === 'string' ? planned : this.advanceLegs(planned.deposit, planned.plan);
      }
      case 'forwarding':
        break;
    }
    return this.advanceLegs(deposit, depositPlan(deposit, this.deps.settings.platformFeeAddress));
  }

  /**
   * final → held_for_operator: a deposit of the other USDC (USDC.e) is never forwarded or called back
   * as the settled token (OTHER_USDC_DEPOSITS=hold, the only mode this version runs); the customer
   * paid, so it is counted, alerted on and shown until an operator deals with it.
   */
  private async holdForOperator(deposit: SettlementDeposit): Promise<void> {
    if (!(await this.deps.settlements.holdOtherToken(deposit.id))) return;
    this.deps.metrics.payoutsHeld.inc({ reason: 'other_token' });
    this.deps.log.error(
      { depositId: deposit.id, token: deposit.token, amount: deposit.amount.toString(), txHash: deposit.txHash },
      'deposit in the other USDC (not the token this gateway settles) held for the operator: the customer paid, the merchant is not paid',
    );
  }

  /** final → held, with why: the payout would cost more than it is worth (dust), or more gas than the platform earns on it. */
  private async hold(deposit: SettlementDeposit, reason: 'dust' | 'below_gas_cost', details: Record<string, string>): Promise<void> {
    if (!(await this.deps.settlements.holdDust(deposit.id))) return;
    this.deps.metrics.payoutsHeld.inc({ reason });
    this.deps.log.warn(
      { depositId: deposit.id, amount: deposit.amount.toString(), reason, ...details },
      reason === 'dust'
        ? 'deposit below the dust threshold is held until the next payout of its wallet (or gateway dust sweep)'
        : "deposit held: the platform fee of its payout is worth less than the payout's gas; it goes with the next payout of its wallet " +
            'that earns its gas (or gateway dust sweep)',
    );
  }

  /**
   * Plans the payout of a final deposit together with its wallet's held dust (dust-policy in
   * @gateway/domain): one payout of the sum, the held deposits swept by this one; or, while the sum
   * is still dust or its platform fee does not pay for its gas, holds the deposit too. Returns the
   * deposit as planned; held; or busy when another payout took the deposit or its wallet's held dust
   * meanwhile (the next run reads what it became).
   */
  private async plan(deposit: SettlementDeposit): Promise<{ deposit: SettlementDeposit; plan: PlannedLeg[] } | 'held' | 'busy'> {
    const { settlements, settings, log } = this.deps;
    const held = await settlements.heldDust(deposit.chainId, deposit.walletId);
    const payout = payoutOfDeposit(
      deposit.amount,
      held.map((dust) => dust.amount),
      settings.dustThreshold,
    );
    if (!payout.pay) {
      await this.hold(deposit, 'dust', { withHeldDust: payout.payable.toString(), dustThreshold: settings.dustThreshold.toString() });
      return 'held';
    }
    const plan = depositPlan(deposit, settings.platformFeeAddress, payout.payable);
    const legs = this.planner.legsOf(deposit, plan);
    const gas = await this.deps.costing.weigh(legs);
    if (gas && !gas.covered) {
      await this.hold(deposit, 'below_gas_cost', {
        withHeldDust: payout.payable.toString(),
        gasCostUsdc: gas.gasCostUsdc.toString(),
        earnedUsdc: gas.earnedUsdc.toString(),
      });
      return 'held';
    }
    const sweptDepositIds = held.map((dust) => dust.id);
    if (!(await settlements.startForwarding(deposit.id, legs, { sweptDepositIds, from: 'final' }))) return 'busy';
    log.info(
      { depositId: deposit.id, sweptDepositIds, legs: legs.map((leg) => ({ leg: leg.leg, amount: leg.amount.toString() })) },
      'payout planned',
    );
    return { deposit: { ...deposit, status: 'forwarding', sweptAmount: payout.payable - deposit.amount }, plan };
  }

  /**
   * One round over the legs not yet confirmed, from the deposit, its legs and its plan read once
   * (DepositRound). The merchant's leg comes first (planned first) and its confirmation forwards the
   * deposit at once; a chain error on a later leg is thrown after that, for the queue's back-off.
   */
  private async advanceLegs(deposit: SettlementDeposit, plan: readonly PlannedLeg[]): Promise<SettlementOutcome> {
    const { payouts, legs: driver, keys, metrics, log } = this.deps;
    const signer = keys.accountAt(deposit.hdIndex, deposit.temporaryAddress);
    const round: DepositRound = { deposit, plan, signer, legs: await payouts.listLegs(deposit.id) };
    const kinds = round.legs.map((leg) => leg.leg);
    const results: LegResult[] = [];
    let chainError: Error | undefined;
    for (const leg of round.legs) {
      try {
        const result = await driver.advance(leg, round);
        results.push(result);
        if (result.outcome === 'needs_attention' && legHoldsDepositBack(leg.leg, kinds))
          return await this.depositNeedsAttention(deposit, leg, result);
      } catch (error) {
        if (!isChainError(error)) throw error;
        chainError = error as Error;
        break;
      }
    }
    const merchantPaid = merchantLegConfirmed(round.legs.map((leg, index) => ({ kind: leg.leg, outcome: results[index]?.outcome })));
    if (deposit.status !== 'forwarded' && merchantPaid) await this.completeForwarding(round, results);
    if (chainError) {
      metrics.chainErrors.inc();
      log.warn({ depositId: deposit.id, reason: chainError.message.split('\n')[0] }, 'chain request failed; the job is retried');
      throw chainError;
    }
    return roundOutcome(results.map((result) => result.outcome));
  }

  /** A leg that holds its deposit back (legHoldsDepositBack) will not succeed: the deposit waits for a person, with that leg's reason. */
  private async depositNeedsAttention(
    deposit: SettlementDeposit,
    leg: PayoutLegRow,
    { reason, detail }: Extract<LegResult, { outcome: 'needs_attention' }>,
  ): Promise<SettlementOutcome> {
    if (reason && (await this.deps.settlements.needAttention(deposit.id, reason, detail))) {
      this.deps.log.error({ depositId: deposit.id, leg: leg.leg, reason }, 'deposit needs attention: its payout will not succeed (replan)');
    }
    return 'needs_attention';
  }

  /** Forwards the deposit: its merchant's leg (every leg, without one) is confirmed by this round's results. */
  private async completeForwarding({ deposit, legs }: DepositRound, results: readonly LegResult[]): Promise<void> {
    const amountOf = (kind: PayoutLegKind) => legs.find((leg) => leg.leg === kind)?.amount ?? 0n;
    const paid = legs.reduce((sum, leg) => sum + leg.amount, 0n);
    // The deposit and the held dust its payout swept: the callback reports all of it as value_coin.
    const payable = deposit.amount + deposit.sweptAmount;
    if (paid !== payable) throw new Error(`deposit ${deposit.id}: legs pay ${paid}, the deposit and the dust it swept are ${payable}`);
    const merchant = Math.max(
      legs.findIndex((leg) => leg.leg === 'merchant'),
      0,
    );
    const merchantResult = results[merchant];
    const txidOut = merchantResult?.outcome === 'confirmed' ? merchantResult.txHash : null;
    if (!txidOut) throw new Error(`deposit ${deposit.id}: confirmed merchant leg without a transaction hash`);
    const delivery = await this.deps.settlements.completeForwarding({
      id: randomUUID(),
      walletId: deposit.walletId,
      depositId: deposit.id,
      valueCoin: payable,
      valueForwardedCoin: amountOf('merchant'),
      feeCoin: amountOf('platform') + amountOf('affiliate'),
      txidIn: deposit.txHash,
      txidOut,
    });
    if (!delivery) throw new Error(`deposit ${deposit.id} left forwarding while its payout was being confirmed`);
    if (delivery.finalForSeconds !== null) this.deps.metrics.finalToForwarded.observe(delivery.finalForSeconds);
    if (delivery.order) this.deps.metrics.countOrderDeposit(delivery.order);
    if (delivery.status === 'pending') await this.deps.callbacks.enqueue(delivery.id);
    this.deps.log.info({ depositId: deposit.id, txidOut, deliveryId: delivery.id }, 'deposit forwarded');
  }

  private async enqueuePendingCallback(depositId: string): Promise<void> {
    const delivery = await this.deps.settlements.findCallbackDelivery(depositId);
    if (delivery?.status === 'pending') await this.deps.callbacks.enqueue(delivery.id);
  }
}
