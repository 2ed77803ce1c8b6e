import { randomUUID } from 'node:crypto';
import type { Address } from 'viem';
import type { FastifyBaseLogger } from 'fastify';
import { legParksDeposit, payoutOfDeposit, type PayoutLegKind } from '@gateway/domain';
import type { PayoutLegRow, PayoutRepository, SettlementDeposit, SettlementRepository } from '@gateway/db/settlement-worker';
import type { SettlementMetrics, SettlementOutcome } from '../metrics';
import { isChainError } from './chain-errors';
import type { LegProgress, PayoutLegDriver } from './payout-leg-driver';
import type { PayoutCosting } from './payout-costing';
import { depositPlan, PayoutPlanner } from './payout-planner';
import type { TemporaryWalletKeys } from './temporary-wallet-keys';

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

/** Not a failure: the job should run again a little later (the worker moves it to `delayed`). */
export class SettlementRetryLater extends Error {
  constructor(
    message: string,
    readonly outcome: SettlementOutcome,
  ) {
    super(message);
    this.name = 'SettlementRetryLater';
  }
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
 *     a fresh random EIP-3009 nonce and validBefore. A deposit below the dust threshold, or whose
 *     platform fee is worth less than the gas of its payout, goes final -> held instead.
 *  3. A round derives the plan from the wallet's terms again and moves each unconfirmed leg one
 *     step with PayoutLegDriver (see there for why a leg is paid exactly once, and only as the plan
 *     says), then gives the deposit back: 'in_flight' asks for another run later, so
 *     no worker slot or lock is held while a payout waits to be final.
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

  /** One run: plans the deposit if it is final, then one round over its legs. */
  async settle(depositId: string): Promise<SettlementOutcome> {
    const lock = await this.deps.settlements.tryLockDeposit(depositId);
    if (!lock) throw new SettlementRetryLater(`deposit ${depositId} is being settled by another worker`, 'busy');
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
        throw new SettlementRetryLater(`deposit ${depositId} is not final yet`, 'not_final');
      case 'orphaned':
        log.warn({ depositId }, 'deposit was orphaned by a reorg; nothing to forward');
        return 'orphaned';
      case 'held':
      case 'held_for_operator':
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
        return planned ? this.advanceLegs(planned) : 'held';
      }
      case 'forwarding':
        break;
    }
    return this.advanceLegs(deposit);
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
        ? 'deposit below the dust threshold is held until the next payout of its wallet (or sweep-dust)'
        : "deposit held: the platform fee of its payout is worth less than the payout's gas; it goes with the next payout of its wallet that earns its gas (or sweep-dust)",
    );
  }

  /**
   * Plans the payout of a final deposit together with its wallet's held dust (dust-policy in
   * @gateway/domain): one payout of the sum, the held deposits swept by this one; or, while the sum
   * is still dust or its platform fee does not pay for its gas, holds the deposit too. Returns the
   * deposit as planned, or undefined when held.
   */
  private async plan(deposit: SettlementDeposit): Promise<SettlementDeposit | undefined> {
    const { settlements, settings, log } = this.deps;
    const held = await settlements.heldDust(deposit.chainId, deposit.walletId);
    const payout = payoutOfDeposit(
      deposit.amount,
      held.map((dust) => dust.amount),
      settings.dustThreshold,
    );
    if (!payout.pay) {
      await this.hold(deposit, 'dust', { withHeldDust: payout.payable.toString(), dustThreshold: settings.dustThreshold.toString() });
      return undefined;
    }
    const legs = this.planner.legs(deposit, payout.payable);
    const gas = await this.deps.costing.weigh(legs);
    if (gas && !gas.covered) {
      await this.hold(deposit, 'below_gas_cost', {
        withHeldDust: payout.payable.toString(),
        gasCostUsdc: gas.gasCostUsdc.toString(),
        earnedUsdc: gas.earnedUsdc.toString(),
      });
      return undefined;
    }
    const sweptDepositIds = held.map((dust) => dust.id);
    if (!(await settlements.startForwarding(deposit.id, legs, { sweptDepositIds, from: 'final' }))) {
      throw new SettlementRetryLater(
        `deposit ${deposit.id} left final, or its wallet's held dust was swept, while it was being planned`,
        'busy',
      );
    }
    log.info(
      { depositId: deposit.id, sweptDepositIds, legs: legs.map((leg) => ({ leg: leg.leg, amount: leg.amount.toString() })) },
      'payout planned',
    );
    return { ...deposit, status: 'forwarding', sweptAmount: payout.payable - deposit.amount };
  }

  /**
   * One round over the legs not yet confirmed. The merchant's leg comes first (planned first) and
   * its confirmation forwards the deposit at once; a chain error on a later leg is thrown after
   * that, for the queue's back-off.
   */
  private async advanceLegs(deposit: SettlementDeposit): Promise<SettlementOutcome> {
    const { payouts, legs: driver, keys, metrics, log, settings } = this.deps;
    const context = {
      depositBlock: deposit.blockNumber,
      signer: keys.accountAt(deposit.hdIndex, deposit.temporaryAddress),
      plan: depositPlan(deposit, settings.platformFeeAddress),
    };
    const legs = await payouts.listLegs(deposit.id);
    const progress: LegProgress[] = [];
    let chainError: Error | undefined;
    for (const leg of legs) {
      try {
        const legProgress = await driver.advance(leg, context);
        progress.push(legProgress);
        if (
          legProgress === 'needs-attention' &&
          legParksDeposit(
            leg.leg,
            legs.map((row) => row.leg),
          )
        )
          return await this.park(deposit, leg.id);
      } catch (error) {
        if (!isChainError(error)) throw error;
        chainError = error as Error;
        break;
      }
    }
    if (deposit.status !== 'forwarded' && merchantLegConfirmed(legs, progress)) await this.completeForwarding(deposit);
    if (chainError) {
      metrics.chainErrors.inc();
      log.warn({ depositId: deposit.id, reason: chainError.message.split('\n')[0] }, 'chain request failed; the job is retried');
      throw chainError;
    }
    if (progress.includes('in-flight')) return 'in_flight';
    return progress.includes('needs-attention') ? 'needs_attention' : 'forwarded';
  }

  /** A leg that parks the deposit will not succeed: the deposit waits for a person, with that leg's reason. */
  private async park(deposit: SettlementDeposit, legId: string): Promise<SettlementOutcome> {
    const leg = (await this.deps.payouts.listLegs(deposit.id)).find((row) => row.id === legId);
    if (leg?.attentionReason && (await this.deps.settlements.needAttention(deposit.id, leg.attentionReason, leg.attentionDetail))) {
      this.deps.log.error(
        { depositId: deposit.id, leg: leg.leg, reason: leg.attentionReason },
        'deposit needs attention: its payout will not succeed (replan)',
      );
    }
    return 'needs_attention';
  }

  private async completeForwarding(deposit: SettlementDeposit): Promise<void> {
    const legs = await this.deps.payouts.listLegs(deposit.id);
    const amountOf = (kind: PayoutLegKind) => legs.find((leg) => leg.leg === kind)?.amount ?? 0n;
    const paid = legs.reduce((sum, leg) => sum + leg.amount, 0n);
    // The deposit and the held dust its payout swept: the callback reports all of it as value_coin.
    const payable = deposit.amount + deposit.sweptAmount;
    if (paid !== payable) throw new Error(`deposit ${deposit.id}: legs pay ${paid}, the deposit and the dust it swept are ${payable}`);
    const merchantLeg = legs.find((leg) => leg.leg === 'merchant') ?? legs[0];
    if (!merchantLeg?.txHash) throw new Error(`deposit ${deposit.id}: confirmed merchant leg without a transaction hash`);
    const delivery = await this.deps.settlements.completeForwarding({
      id: randomUUID(),
      walletId: deposit.walletId,
      depositId: deposit.id,
      valueCoin: payable,
      valueForwardedCoin: amountOf('merchant'),
      feeCoin: amountOf('platform') + amountOf('affiliate'),
      txidIn: deposit.txHash,
      txidOut: merchantLeg.txHash,
    });
    if (!delivery) throw new Error(`deposit ${deposit.id} left forwarding while its payout was being confirmed`);
    if (delivery.status === 'pending') await this.deps.callbacks.enqueue(delivery.id);
    this.deps.log.info({ depositId: deposit.id, txidOut: merchantLeg.txHash, deliveryId: delivery.id }, 'deposit forwarded');
  }

  private async enqueuePendingCallback(depositId: string): Promise<void> {
    const delivery = await this.deps.settlements.findCallbackDelivery(depositId);
    if (delivery?.status === 'pending') await this.deps.callbacks.enqueue(delivery.id);
  }
}

/** The leg the merchant's callback waits for is confirmed (every leg, for a split that pays the merchant nothing). */
function merchantLegConfirmed(legs: readonly PayoutLegRow[], progress: readonly LegProgress[]): boolean {
  const merchant = legs.findIndex((leg) => leg.leg === 'merchant');
  const awaited = merchant >= 0 ? [merchant] : legs.map((_, index) => index);
  return awaited.every((index) => progress[index] === 'confirmed');
}
