import type { Queue } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import { formatEther } from 'viem';
import { settlementJobId, settlementJobOptions, type SettlementJob } from '@gateway/queue';
import type { SettlementRepository } from '@gateway/db';
import type { SettlementMetrics } from '../metrics';
import type { Relayer } from './relayer';
import type { SettlementChain } from './settlement-chain';

export const SETTLEMENT_JOB_NAME = 'settle-deposit';

export interface ReconcilerDeps {
  settlements: SettlementRepository;
  queue: Queue<SettlementJob>;
  chain: SettlementChain;
  relayer: Relayer;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
  intervalMs: number;
}

// Deposits looked at per pass; a backlog larger than this is worked through over several passes.
const BATCH = 500;

/**
 * PostgreSQL is the source of truth and Redis only carries work in flight. Every interval this
 * finds deposits that settlement still owes work on (final or forwarding) and makes sure each
 * has a live job: it adds the job if Redis lost it, retries it if it failed, and adds it again if
 * it completed without finishing the deposit. It also refreshes the relayer balance gauge.
 */
export class SettlementReconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: ReconcilerDeps) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass; returns how many deposits were given a job again. */
  async reconcile(): Promise<number> {
    const { settlements, queue, chain } = this.deps;
    let enqueued = 0;
    for (const depositId of await settlements.listUnsettled(chain.chainId, BATCH)) {
      const jobId = settlementJobId(depositId);
      const state = await queue.getJobState(jobId);
      if (state === 'failed') {
        await (await queue.getJob(jobId))?.retry('failed');
      } else if (state === 'completed' || state === 'unknown') {
        if (state === 'completed') await (await queue.getJob(jobId))?.remove();
        await queue.add(SETTLEMENT_JOB_NAME, { depositId }, { ...settlementJobOptions, jobId });
      } else {
        continue;
      }
      enqueued += 1;
    }
    if (enqueued > 0) {
      this.deps.metrics.reconcilerEnqueued.inc(enqueued);
      this.deps.log.info({ enqueued }, 'reconciler re-enqueued deposits without a live settlement job');
    }
    return enqueued;
  }

  async refreshRelayerBalance(): Promise<void> {
    const balance = await this.deps.chain.nativeBalance(this.deps.relayer.address);
    this.deps.metrics.relayerBalance.set(Number(formatEther(balance)));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass().finally(() => this.schedule(this.deps.intervalMs));
    }, delayMs);
  }

  private async pass(): Promise<void> {
    try {
      await this.reconcile();
      await this.refreshRelayerBalance();
    } catch (error) {
      this.deps.log.warn({ reason: (error as Error).message.split('\n')[0] }, 'settlement reconciler pass failed');
    }
  }
}
