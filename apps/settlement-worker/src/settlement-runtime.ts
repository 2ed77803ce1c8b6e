import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import {
  callbackJobId,
  callbackJobOptions,
  QUEUE_NAMES,
  redisConnection,
  type CallbackJob,
  type RedisSettings,
  type SettlementJob,
} from '@gateway/queue';
import type { SettlementMetrics, SettlementOutcome } from './metrics';
import { DepositNotFound, SettlementRetryLater, type CallbackEnqueuer, type SettlementService } from './services/settlement-service';
import { SettlementReconciler, type ReconcilerDeps } from './services/settlement-reconciler';

// The callback worker's job name for a delivery.
const CALLBACK_JOB_NAME = 'deliver';

export interface RuntimeSettings {
  redis: RedisSettings;
  concurrency: number;
  /** BullMQ lock; a job whose worker died is picked up again after about this long. */
  jobLockMs: number;
  reconcileIntervalMs: number;
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
  constructor(private readonly queue: Queue<CallbackJob>) {}

  async enqueue(deliveryId: string): Promise<void> {
    await this.queue.add(CALLBACK_JOB_NAME, { deliveryId }, { ...callbackJobOptions, jobId: callbackJobId(deliveryId) });
  }
}

export function openCallbackQueue(redis: RedisSettings): Queue<CallbackJob> {
  return new Queue<CallbackJob>(QUEUE_NAMES.callbacks, { connection: redisConnection(redis, 'producer'), prefix: redis.prefix });
}

/**
 * The moving parts of the process: the BullMQ consumer of final deposits and the reconciler.
 * Nothing runs until start(); close() stops taking jobs, lets running ones finish, and closes
 * every Redis connection it opened.
 */
export class SettlementRuntime {
  readonly settlementQueue: Queue<SettlementJob>;
  readonly reconciler: SettlementReconciler;
  private worker: Worker<SettlementJob, SettlementOutcome> | undefined;

  constructor(
    private readonly deps: RuntimeDeps,
    private readonly callbackQueue: Queue<CallbackJob>,
  ) {
    const { redis } = deps.settings;
    this.settlementQueue = new Queue<SettlementJob>(QUEUE_NAMES.settlement, {
      connection: redisConnection(redis, 'producer'),
      prefix: redis.prefix,
    });
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
    this.worker = new Worker<SettlementJob, SettlementOutcome>(QUEUE_NAMES.settlement, (job) => this.process(job.data), {
      connection: redisConnection(settings.redis, 'worker'),
      prefix: settings.redis.prefix,
      concurrency: settings.concurrency,
      lockDuration: settings.jobLockMs,
      stalledInterval: settings.jobLockMs,
      // Running a settlement job again is always safe (it resumes), so a job is never failed for
      // having stalled, however often its worker died.
      maxStalledCount: 1_000,
    });
    this.worker.on('failed', (job, error) => {
      const level = error instanceof SettlementRetryLater ? 'info' : 'warn';
      log[level]({ depositId: job?.data.depositId, attempt: job?.attemptsMade, reason: error.message }, 'settlement attempt did not finish');
    });
    this.worker.on('error', (error) => log.error({ reason: error.message }, 'settlement worker error'));
    this.reconciler.start();
  }

  async isRedisReachable(): Promise<boolean> {
    await this.settlementQueue.getJobCounts('waiting');
    return true;
  }

  async close(): Promise<void> {
    this.deps.service.stop();
    await this.reconciler.stop();
    await this.worker?.close();
    await this.settlementQueue.close();
    await this.callbackQueue.close();
  }

  private async process(job: SettlementJob): Promise<SettlementOutcome> {
    const { service, metrics } = this.deps;
    const stopTimer = metrics.jobDuration.startTimer();
    let outcome: SettlementOutcome = 'error';
    try {
      outcome = await service.settle(job.depositId);
      return outcome;
    } catch (error) {
      if (error instanceof SettlementRetryLater) outcome = error.outcome;
      if (error instanceof DepositNotFound) throw new UnrecoverableError(error.message);
      throw error;
    } finally {
      stopTimer({ outcome });
      metrics.depositsSettled.inc({ outcome });
    }
  }
}
