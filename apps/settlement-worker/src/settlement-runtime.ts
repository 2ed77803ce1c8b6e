import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
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
import { settlementRunsAgain, type SettlementOutcome } from '@gateway/domain';
import type { SettlementMetrics } from './metrics';
import { DepositNotFound, type CallbackEnqueuer, type SettlementService } from './services/settlement-service';
import { SettlementReconciler, type ReconcilerDeps } from './services/settlement-reconciler';

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
    const { settings, log } = this.deps;
    this.worker = new Worker<SettlementJob, SettlementOutcome>(QUEUE_NAMES.settlement, (job, token) => this.process(job, token), {
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

  private async process(job: Job<SettlementJob>, token: string | undefined): Promise<SettlementOutcome> {
    const { service, metrics, settings } = this.deps;
    const stopTimer = metrics.jobRunDuration.startTimer();
    let outcome: SettlementOutcome = 'error';
    try {
      outcome = await service.settle(job.data.depositId);
    } catch (error) {
      if (error instanceof DepositNotFound) throw new UnrecoverableError(error.message);
      throw error;
    } finally {
      stopTimer({ outcome });
      metrics.jobRuns.inc({ outcome });
    }
    // Not a failure: the job goes back to `delayed` (BullMQ's attemptsMade and back-off are for failures only).
    if (!settlementRunsAgain(outcome)) return outcome;
    await job.moveToDelayed(Date.now() + settings.pollIntervalMs, token);
    throw new DelayedError();
  }
}
