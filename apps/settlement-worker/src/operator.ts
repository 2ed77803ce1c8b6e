// The settlement worker's operator operations, for `gateway deposits replan`, `gateway deposits paid-by-hand` and `gateway dust sweep`
// (apps/cli): the package's second entry point (`@gateway/settlement-worker/operator`). They stay in
// this app, beside the services they compose, rather than in a package: they are settlement's own
// work (its planner, relayer outbox, finality and costing rules), and moving those services out would
// move most of the app. Each builds only what it uses: no BullMQ worker, no HTTP server, no callback
// queue; the replanner the chain, the relayer and the outbox; the sweep the planner and, unless
// forced, the gas price.
import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import type { Hash } from 'viem';
import { Registry } from 'prom-client';
import { assertTokenCounted, assertWalletsHdKey } from '@gateway/http/boot-checks';
import { PayoutRepository, SettlementRepository, WalletLookupRepository, type NewPayoutLeg } from '@gateway/db/settlement-worker';
import { sweepOfHeldDust } from '@gateway/domain';
import { ensureLiveSettlementJob, openSettlementQueue, produceWithin } from '@gateway/queue';
import { payoutTokenCheck, seedKeyCheck } from './services/boot-checks';
import { settlementChainOptions, type SettlementConfig } from './config';
import { SettlementMetrics } from './metrics';
import { crashHookFor } from './crash-points';
import { DepositReplanner, type ReplanResult, type ReplanRun } from './services/deposit-replanner';
import { payoutCosting, type PayoutCosting } from './legs/payout-costing';
import { PayoutFinality } from './legs/payout-finality';
import { PayoutPlanner } from './legs/payout-planner';
import { Relayer } from './chain/relayer';
import { RelayerOutbox } from './chain/relayer-outbox';
import { SettlementChainClient } from './chain/settlement-chain-client';
import { TemporaryWalletKeys } from './chain/temporary-wallet-keys';
import { checkAndRecordHandPayout } from './services/hand-payouts';

export { loadSettlementConfig, settlementSettings, type SettlementConfig } from './config';
export type { ReplanResult, ReplanRun } from './services/deposit-replanner';
export { listHeldForOperator, type HandPayoutResult, type HeldDeposit } from './services/hand-payouts';

/** How a job for the deposit got to Redis: queued now, or left to the worker's reconciler (Redis refused). */
export type QueuedBy = { queuedBy: 'queued' } | { queuedBy: 'reconciler'; queueError: string };

// The command's progress is its output: the services' own log lines stay quiet, as with the worker's app built with logger: false.
const quiet: FastifyBaseLogger = {
  level: 'silent',
  fatal: () => undefined,
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  trace: () => undefined,
  silent: () => undefined,
  child: () => quiet,
};

async function queueSettlement(config: SettlementConfig, depositId: string): Promise<QueuedBy> {
  try {
    await produceWithin(openSettlementQueue(config.redis), (queue) => ensureLiveSettlementJob(queue, depositId));
    return { queuedBy: 'queued' };
  } catch (error) {
    return { queuedBy: 'reconciler', queueError: (error as Error).message };
  }
}

/**
 * Re-plans a deposit that needs attention (DepositReplanner), with the worker's checks first: the
 * seed is the one the wallets were derived from, the token is the one this database counts in. A
 * re-planned deposit gets a live settlement job (its last run ended in needs_attention or failed).
 * `registry`: where its metrics are counted; by default one of its own, since nothing scrapes a command.
 */
export async function replanDeposit(
  config: SettlementConfig,
  pool: Pool,
  depositId: string,
  run: ReplanRun,
  registry = new Registry(),
): Promise<ReplanResult | (Extract<ReplanResult, { result: 'replanned' }> & QueuedBy)> {
  const { raw } = config;
  const chain = await SettlementChainClient.connect(settlementChainOptions(config));
  await assertWalletsHdKey(seedKeyCheck(pool, config.mnemonic));
  await assertTokenCounted(payoutTokenCheck(pool, chain));
  const metrics = new SettlementMetrics(registry);
  const payouts = new PayoutRepository(pool);
  const relayer = new Relayer(config.relayerKey, chain.chainId, raw.FEE_BUMP_PERCENT, config.maxFeePerGas);
  const crash = crashHookFor(config.crashAt);
  const replanner = new DepositReplanner({
    settlements: new SettlementRepository(pool),
    payouts,
    chain,
    outbox: new RelayerOutbox({ payouts, chain, relayer, metrics, log: quiet, crash }),
    keys: new TemporaryWalletKeys(config.mnemonic),
    finality: new PayoutFinality({ chain, confirmations: raw.CONFIRMATIONS, metrics, log: quiet }),
    settings: {
      platformFeeAddress: config.platformFeeAddress,
      authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
      pollIntervalMs: raw.POLL_INTERVAL_MS,
      stuckTxTimeoutMs: raw.STUCK_TX_TIMEOUT_MS,
    },
  });
  const outcome = await replanner.replan(depositId, run);
  if (outcome.result !== 'replanned') return outcome;
  return { ...outcome, ...(await queueSettlement(config, depositId)) };
}

/**
 * Records a payout the operator made by hand of a deposit held for it (the other USDC), once the chain
 * shows it (hand-payouts.ts says what is checked). `registry`: where its metrics are counted; by default
 * one of its own, since nothing scrapes a command.
 */
export function recordHandPayout(config: SettlementConfig, pool: Pool, depositId: string, txHash: Hash, registry = new Registry()) {
  return checkAndRecordHandPayout(config, pool, depositId, txHash, { registry, log: quiet });
}

export interface DustSweepRequest {
  /** Lower-case; undefined for every wallet with held dust. */
  wallet?: string;
  /** Pays whatever the dust sums to and costs. */
  force: boolean;
}

/** What became of one wallet's held dust. */
export type WalletSweep = {
  wallet: string;
  heldDeposits: number;
  /** USDC base units the payout would move. */
  amount: bigint;
} & (
  | { outcome: 'below_threshold'; dustThreshold: bigint }
  | { outcome: 'below_gas_cost'; platformFee: bigint; gasCost: bigint }
  | { outcome: 'taken_meanwhile' }
  | ({ outcome: 'paid'; carrierDepositId: string; legs: Pick<NewPayoutLeg, 'leg' | 'amount' | 'toAddress'>[] } & QueuedBy)
);

export type DustSweepResult = { result: 'no_such_wallet' } | { result: 'swept'; wallets: WalletSweep[] };

/**
 * Pays out held dust now, without waiting for the next deposit into its wallet. Each wallet's held
 * deposits become one payout of their sum, carried by the newest of them (the others are swept by
 * it, and its one callback reports the sum); a sum below DUST_THRESHOLD, or whose platform fee is
 * worth less than the payout's gas (PAYOUT_BELOW_GAS_COST=hold, at the gas price now), stays held
 * unless forced. It signs nothing: the worker pays the planned legs. If Redis is out of reach, the
 * worker's reconciler queues them.
 */
export async function sweepHeldDust(config: SettlementConfig, pool: Pool, request: DustSweepRequest): Promise<DustSweepResult> {
  const { raw } = config;
  const settlements = new SettlementRepository(pool);
  const wallets = await settlements.walletsWithHeldDust(raw.CHAIN_ID, request.wallet);
  if (wallets.length === 0) {
    if (request.wallet && !(await new WalletLookupRepository(pool).hasTemporaryAddress(request.wallet)))
      return { result: 'no_such_wallet' };
    return { result: 'swept', wallets: [] };
  }
  const planner = new PayoutPlanner({
    platformFeeAddress: config.platformFeeAddress,
    authorizationValiditySeconds: raw.AUTHORIZATION_VALIDITY_SECONDS,
  });
  // The worker's rule for a payout's gas, priced by the same node at the same ceiling; forced pays regardless.
  let costing: PayoutCosting | undefined;
  if (!request.force) {
    const chain = await SettlementChainClient.connect(settlementChainOptions(config));
    costing = payoutCosting(config, chain, new Relayer(config.relayerKey, chain.chainId, raw.FEE_BUMP_PERCENT, config.maxFeePerGas));
  }
  const swept: WalletSweep[] = [];
  for (const wallet of wallets) {
    const amounts = wallet.held.map((dust) => dust.amount);
    const sweep = sweepOfHeldDust(amounts, config.dustThreshold, request.force);
    const about = { wallet: wallet.temporaryAddress, heldDeposits: wallet.held.length, amount: sweep.payable };
    if (!sweep.pay) {
      swept.push({ ...about, outcome: 'below_threshold', dustThreshold: config.dustThreshold });
      continue;
    }
    const carrier = wallet.held[wallet.held.length - 1]!;
    const deposit = await settlements.findDeposit(carrier.id);
    if (!deposit) throw new Error(`held deposit ${carrier.id} vanished`);
    const legs = planner.legs(deposit, sweep.payable);
    const gas = await costing?.weigh(legs);
    if (gas && !gas.covered) {
      swept.push({ ...about, outcome: 'below_gas_cost', platformFee: gas.earnedUsdc, gasCost: gas.gasCostUsdc });
      continue;
    }
    const sweptDepositIds = wallet.held.slice(0, -1).map((dust) => dust.id);
    if (!(await settlements.startForwarding(carrier.id, legs, { sweptDepositIds, from: 'held' }))) {
      swept.push({ ...about, outcome: 'taken_meanwhile' });
      continue;
    }
    const planned = legs.map(({ leg, amount, toAddress }) => ({ leg, amount, toAddress }));
    swept.push({ ...about, outcome: 'paid', carrierDepositId: carrier.id, legs: planned, ...(await queueSettlement(config, carrier.id)) });
  }
  return { result: 'swept', wallets: swept };
}
