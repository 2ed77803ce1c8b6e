import type { FastifyBaseLogger } from 'fastify';
import { formatEther } from 'viem';
import { formatUsdc } from '@gateway/domain';
import { ensureLiveSettlementJob, RepeatingPass, type SettlementQueue } from '@gateway/queue';
import type { SettlementRepository } from '@gateway/db/settlement-worker';
import type { SettlementMetrics } from '../metrics';
import type { Relayer } from '../chain/relayer';
import type { SettlementChainClient } from '../chain/settlement-chain-client';

export interface SettlementReconcilerDeps {
  settlements: SettlementRepository;
  queue: SettlementQueue;
  chain: SettlementChainClient;
  relayer: Relayer;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
  intervalMs: number;
}

// Deposits read per query; a pass pages through all of them, whatever the backlog.
const PAGE = 500;

/**
 * PostgreSQL is the source of truth and Redis only carries work in flight. Every interval this
 * pages through every deposit settlement still owes work on (final, forwarding, or forwarded with a
 * leg unpaid) and makes sure each has a live job that will run in time: it adds the job if Redis
 * lost it, retries it if it failed, adds it again if it completed without finishing the deposit,
 * and promotes one delayed longer than the retry schedule ever waits (a job delayed for days is as
 * good as lost). Each pass also refreshes the backlog gauges (oldest deposit owing settlement,
 * held dust, deposits needing a person), and the relayer balance gauge.
 */
export class SettlementReconciler {
  private readonly passes: RepeatingPass;

  constructor(private readonly deps: SettlementReconcilerDeps) {
    this.passes = new RepeatingPass(
      async () => {
        await this.reconcile();
        await this.refreshRelayerBalance();
      },
      deps.intervalMs,
      (error) => deps.log.warn({ reason: (error as Error).message.split('\n')[0] }, 'settlement reconciler pass failed'),
    );
  }

  start(): void {
    this.passes.start();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** One pass over every deposit owing settlement; returns how many were given a job again (promotions included). */
  async reconcile(): Promise<number> {
    const { settlements, chain, metrics, log } = this.deps;
    let enqueued = 0;
    let promoted = 0;
    let afterId = '0';
    for (;;) {
      const page = await settlements.listUnsettled(chain.chainId, afterId, PAGE);
      for (const depositId of page) {
        const action = await ensureLiveSettlementJob(this.deps.queue, depositId);
        if (action === 'enqueued') enqueued += 1;
        if (action === 'promoted') promoted += 1;
      }
      if (page.length < PAGE || this.passes.isStopped) break;
      afterId = page[page.length - 1]!;
    }
    if (enqueued > 0) {
      metrics.reconcilerEnqueued.inc(enqueued);
      log.info({ enqueued }, 'reconciler re-enqueued deposits without a live settlement job');
    }
    if (promoted > 0) {
      metrics.reconcilerPromoted.inc(promoted);
      log.warn({ promoted }, 'reconciler promoted settlement jobs delayed past the retry schedule');
    }
    await this.refreshBacklog();
    return enqueued + promoted;
  }

  /** Age of the oldest deposit owing settlement, the held dust and the deposits needing a person, from PostgreSQL. */
  async refreshBacklog(): Promise<void> {
    const backlog = await this.deps.settlements.backlog(this.deps.chain.chainId);
    const { metrics } = this.deps;
    metrics.oldestUnsettledSeconds.set(Math.floor(backlog.oldestOwingSeconds));
    metrics.dustHeldDeposits.set(backlog.heldDeposits);
    // A gauge is a float: whole USDC for people and alerts, read from the exact decimal, never used as money.
    metrics.dustHeldUsdc.set(Number(formatUsdc(backlog.heldAmount)));
    metrics.depositsNeedingAttention.set(backlog.needingAttention);
    metrics.heldForOperatorDeposits.set(backlog.heldForOperator);
    metrics.heldForOperatorUsdc.set(Number(formatUsdc(backlog.heldForOperatorAmount)));
  }

  async refreshRelayerBalance(): Promise<void> {
    const balance = await this.deps.chain.nativeBalance(this.deps.relayer.address);
    this.deps.metrics.relayerBalance.set(Number(formatEther(balance)));
  }
}
