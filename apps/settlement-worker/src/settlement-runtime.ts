import { Worker } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import {
  enqueueDeliveries,
  openSettlementQueue,
  QUEUE_NAMES,
  redisConnection,
  settlementWorkerSettings,
  type CallbackQueue,
  type RedisSettings,
  type SettlementJob,
  type SettlementQueue,
} from '@gateway/queue';
import type { SettlementOutcome } from '@gateway/domain';
import type { SettlementMetrics } from './metrics';
import { SettlementReconciler, type ReconcilerDeps } from './jobs/reconcile-settlements';
import { settleDepositJob } from './jobs/settle-deposit';
import type { CallbackEnqueuer, SettlementService } from './services/settlement-service';

export interface RuntimeSettings {
  redis: RedisSettings;
  concurrency: number;
  /** BullMQ lock; a job whose worker died is picked up again after about this long. */
  jobLockMs: number;
  reconcileIntervalMs: number;
  /** A job whose deposit still owes work (payout in flight, busy elsewhere, not final) runs again after this long. */
  pollIntervalMs: number;
}

export interface RuntimeDeps {
  service: SettlementService;
  metrics: SettlementMetrics;
  log: FastifyBaseLogger;
  settings: RuntimeSettings;
  reconciler: Omit<ReconcilerDeps, 'queue' | 'intervalMs' | 'metrics' | 'log'>;
}

/** Producer side of the callback queue: a forwarded deposit's delivery, job id = delivery id. */
export class CallbackQueueEnqueuer implements CallbackEnqueuer {
  constructor(private readonly queue: CallbackQueue) {}

  async enqueue(deliveryId: string): Promise<void> {
    await enqueueDeliveries(this.queue, [deliveryId]);
  }
}

/**
 * The moving parts of the process: the BullMQ consumer of final deposits and the reconciler.
 * Nothing runs until start(); close() stops taking jobs, lets running ones finish, and closes
 * every Redis connection it opened.
 */
export class SettlementRuntime {
  readonly settlementQueue: SettlementQueue;
  readonly reconciler: SettlementReconciler;
  private worker: Worker<SettlementJob, SettlementOutcome> | undefined;

  constructor(
    private readonly deps: RuntimeDeps,
    private readonly callbackQueue: CallbackQueue,
  ) {
    this.settlementQueue = openSettlementQueue(deps.settings.redis);
    this.reconciler = new SettlementReconciler({
      ...deps.reconciler,
      queue: this.settlementQueue,
      intervalMs: deps.settings.reconcileIntervalMs,
      metrics: deps.metrics,
      log: deps.log,
    });
  }

  start(): void {
    if (this.worker) return;
    const { service, metrics, settings, log } = this.deps;
    // The queue's name registers its job (jobs/settle-deposit), as each queue would.
    const handler = settleDepositJob({ service, metrics, pollIntervalMs: settings.pollIntervalMs });
    this.worker = new Worker<SettlementJob, SettlementOutcome>(QUEUE_NAMES.settlement, handler, {
      connection: redisConnection(settings.redis, 'worker'),
      prefix: settings.redis.prefix,
      concurrency: settings.concurrency,
      settings: settlementWorkerSettings,
      lockDuration: settings.jobLockMs,
      stalledInterval: settings.jobLockMs,
      // Running a settlement job again is always safe (it resumes), so a job is never failed for
      // having stalled, however often its worker died.
      maxStalledCount: 1_000,
    });
    this.worker.on('failed', (job, error) => {
      log.warn({ depositId: job?.data.depositId, attempt: job?.attemptsMade, reason: error.message }, 'settlement job run failed');
    });
    this.worker.on('error', (error) => log.error({ reason: error.message }, 'settlement worker error'));
    this.reconciler.start();
  }

  async isRedisReachable(): Promise<boolean> {
    await this.settlementQueue.getJobCounts('waiting');
    return true;
  }

  /** Runs in progress finish their round and go back to `delayed`, for whichever process runs next. */
  async close(): Promise<void> {
    await this.reconciler.stop();
    await this.worker?.close();
    await this.settlementQueue.close();
    await this.callbackQueue.close();
  }
}
