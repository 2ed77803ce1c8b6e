import { randomUUID } from 'node:crypto';
import type { Address, LocalAccount } from 'viem';
import type { FastifyBaseLogger } from 'fastify';
import { isDustDeposit, splitWalletDeposit, type PayoutLegKind } from '@gateway/domain';
import { randomAuthorizationNonce } from '@gateway/chain';
import type { NewPayoutLeg, PayoutLegRow, PayoutRepository, SettlementDeposit, SettlementRepository } from '@gateway/db';
import type { SettlementMetrics, SettlementOutcome } from '../metrics';
import { isChainError } from './chain-errors';
import type { PayoutLegDriver } from './payout-leg-driver';
import type { TemporaryWalletKeys } from './temporary-wallet-keys';

/** Puts a callback delivery on the callback queue (idempotent: job id = delivery id). */
export interface CallbackEnqueuer {
  enqueue(deliveryId: string): Promise<void>;
}

export interface SettlementServiceSettings {
  platformFeeBps: number;
  platformFeeAddress: Address;
  dustThreshold: bigint;
  authorizationValiditySeconds: number;
  pollIntervalMs: number;
  /** A job attempt gives up (and is retried by the queue) after this long without finishing. */
  maxAttemptMs: number;
}

export interface SettlementServiceDeps {
  settlements: SettlementRepository;
  payouts: PayoutRepository;
  legs: PayoutLegDriver;
  keys: TemporaryWalletKeys;
  callbacks: CallbackEnqueuer;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
  settings: SettlementServiceSettings;
}

/** The job should run again later; the queue retries it with back-off. */
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

const MAX_BACKOFF_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Forwards one final deposit, exactly once:
 *  1. Only one worker at a time works on a deposit (an advisory lock, on top of BullMQ's job id =
 *     deposit id); each state change is also guarded by the status it starts from.
 *  2. Planning, before anything is signed, is one database transaction: the deposit goes
 *     final -> forwarding and its legs are written, each with a fresh random EIP-3009 nonce and
 *     validBefore. A deposit below the dust threshold goes final -> held instead.
 *  3. Each leg is driven to paid by PayoutLegDriver (see there for why a leg is paid exactly once).
 *  4. When every leg is confirmed, one transaction marks the deposit forwarded and writes its
 *     callback delivery; after the commit the callback job is enqueued (the callback worker's
 *     reconciler covers a crash in between).
 * Any step can be interrupted (process killed, RPC down): running the job again resumes it.
 */
export class SettlementService {
  private stopping = false;

  constructor(private readonly deps: SettlementServiceDeps) {}

  /**
   * Makes payouts in progress give their deposit back at the end of the current round, so a
   * shutdown does not wait for confirmations. Safe at any moment: the next run resumes them.
   */
  stop(): void {
    this.stopping = true;
  }

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
        return 'held';
      case 'forwarded':
        await this.enqueuePendingCallback(depositId);
        return 'forwarded';
      case 'final':
        if (isDustDeposit(deposit.amount, this.deps.settings.dustThreshold)) return this.holdDust(deposit);
        await this.plan(deposit);
        break;
      case 'forwarding':
        break;
    }
    const signer = this.deps.keys.accountAt(deposit.hdIndex, deposit.temporaryAddress);
    const legs = await this.payAllLegs(deposit, signer);
    return this.completeForwarding(deposit, legs);
  }

  private async holdDust(deposit: SettlementDeposit): Promise<SettlementOutcome> {
    if (await this.deps.settlements.holdDust(deposit.id)) {
      this.deps.log.warn(
        { depositId: deposit.id, amount: deposit.amount.toString(), dustThreshold: this.deps.settings.dustThreshold.toString() },
        'deposit below the dust threshold is held, not forwarded',
      );
    }
    return 'held';
  }

  private async plan(deposit: SettlementDeposit): Promise<void> {
    const { settings } = this.deps;
    const split = splitWalletDeposit(deposit.amount, settings.platformFeeBps, deposit);
    const recipients: Record<PayoutLegKind, string | null> = {
      merchant: deposit.payoutAddress,
      platform: settings.platformFeeAddress,
      affiliate: deposit.affiliateAddress,
    };
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + settings.authorizationValiditySeconds);
    const legs: NewPayoutLeg[] = split.legs.map(({ kind, amount }) => {
      const toAddress = recipients[kind];
      if (!toAddress) throw new Error(`wallet ${deposit.walletId} has an affiliate share but no affiliate address`);
      return { leg: kind, fromAddress: deposit.temporaryAddress, toAddress, amount, authorizationNonce: randomAuthorizationNonce(), validBefore };
    });
    if (!(await this.deps.settlements.startForwarding(deposit.id, legs))) {
      throw new SettlementRetryLater(`deposit ${deposit.id} left final while it was being planned`, 'busy');
    }
    this.deps.log.info(
      { depositId: deposit.id, legs: legs.map((leg) => ({ leg: leg.leg, amount: leg.amount.toString() })) },
      'payout planned',
    );
  }

  /** Rounds of PayoutLegDriver.advance over every leg until all are confirmed; chain failures back off and retry. */
  private async payAllLegs(deposit: SettlementDeposit, signer: LocalAccount): Promise<PayoutLegRow[]> {
    const { payouts, legs: driver, settings, metrics, log } = this.deps;
    const context = { depositBlock: deposit.blockNumber, signer };
    const deadline = Date.now() + settings.maxAttemptMs;
    let failures = 0;
    for (;;) {
      try {
        const legs = await payouts.listLegs(deposit.id);
        let confirmed = 0;
        for (const leg of legs) if ((await driver.advance(leg, context)) === 'confirmed') confirmed += 1;
        if (confirmed === legs.length) return await payouts.listLegs(deposit.id);
        failures = 0;
      } catch (error) {
        if (!isChainError(error)) throw error;
        failures += 1;
        metrics.chainErrors.inc();
        log.warn({ depositId: deposit.id, failures, reason: (error as Error).message.split('\n')[0] }, 'chain request failed; retrying');
      }
      if (this.stopping) throw new SettlementRetryLater(`worker stopping; deposit ${deposit.id} resumes elsewhere`, 'interrupted');
      if (Date.now() > deadline) {
        throw new SettlementRetryLater(`payout of deposit ${deposit.id} not confirmed within ${settings.maxAttemptMs} ms`, 'error');
      }
      await sleep(failures === 0 ? settings.pollIntervalMs : Math.min(settings.pollIntervalMs * 2 ** failures, MAX_BACKOFF_MS));
    }
  }

  private async completeForwarding(deposit: SettlementDeposit, legs: PayoutLegRow[]): Promise<SettlementOutcome> {
    const amountOf = (kind: PayoutLegKind) => legs.find((leg) => leg.leg === kind)?.amount ?? 0n;
    const paid = legs.reduce((sum, leg) => sum + leg.amount, 0n);
    if (paid !== deposit.amount) throw new Error(`deposit ${deposit.id}: legs pay ${paid}, the deposit is ${deposit.amount}`);
    const merchantLeg = legs.find((leg) => leg.leg === 'merchant') ?? legs[0];
    if (!merchantLeg?.txHash) throw new Error(`deposit ${deposit.id}: confirmed legs without a transaction hash`);
    const delivery = await this.deps.settlements.completeForwarding({
      id: randomUUID(),
      walletId: deposit.walletId,
      depositId: deposit.id,
      valueCoin: deposit.amount,
      valueForwardedCoin: amountOf('merchant'),
      feeCoin: amountOf('platform') + amountOf('affiliate'),
      txidIn: deposit.txHash,
      txidOut: merchantLeg.txHash,
    });
    if (!delivery) throw new Error(`deposit ${deposit.id} left forwarding while its payout was being confirmed`);
    if (delivery.status === 'pending') await this.deps.callbacks.enqueue(delivery.id);
    this.deps.log.info({ depositId: deposit.id, txidOut: merchantLeg.txHash, deliveryId: delivery.id }, 'deposit forwarded');
    return 'forwarded';
  }

  private async enqueuePendingCallback(depositId: string): Promise<void> {
    const delivery = await this.deps.settlements.findCallbackDelivery(depositId);
    if (delivery?.status === 'pending') await this.deps.callbacks.enqueue(delivery.id);
  }
}
