import { Queue, type AdvancedOptions, type BackoffStrategy, type Job, type JobsOptions } from 'bullmq';
import { redisConnection, type RedisSettings } from './connection';
import { settlementJobId, type SettlementJob } from './job-payloads';
import type { QueueWorkerDefinition } from './queue-consumer';
import { QUEUE_NAMES, SETTLEMENT_JOB_NAME } from './queue-names';

/**
 * The settlement queue, in one place: how it is opened, the options of its jobs (one per deposit,
 * job id = deposit id), and how a deposit that owes settlement is given a live job. The chain
 * watcher adds jobs, the settlement worker consumes them (its reconciler and commands add them
 * again); all of them go through here.
 */

/** The first retry of a failed settlement job waits this long; each further failure doubles it, up to the cap. */
export const SETTLEMENT_RETRY_FIRST_DELAY_MS = 2_000;
/**
 * However often a settlement job failed, its next try is at most this far away: a deposit is money,
 * and the node or database that failed it may be back any moment. (BullMQ's own exponential backoff
 * has no cap: 9 hours after 15 failures, decades after 30.)
 */
export const SETTLEMENT_RETRY_MAX_DELAY_MS = 2 * 60_000;
const SETTLEMENT_RETRY_BACKOFF = 'settlement-capped-exponential';

const settlementRetryDelay: BackoffStrategy = (attemptsMade) =>
  Math.min(SETTLEMENT_RETRY_FIRST_DELAY_MS * 2 ** Math.max(0, attemptsMade - 1), SETTLEMENT_RETRY_MAX_DELAY_MS);

/**
 * Settlement retries for as long as it takes: a deposit is money, and each retry resumes from
 * what PostgreSQL recorded, so retrying can never pay twice. Only failures count as attempts: a
 * job that has to come back later (payout in flight, deposit busy elsewhere) is moved to
 * `delayed` by the worker instead.
 */
export const settlementJobOptions: JobsOptions = {
  attempts: 1_000,
  backoff: { type: SETTLEMENT_RETRY_BACKOFF, delay: SETTLEMENT_RETRY_FIRST_DELAY_MS },
  removeOnComplete: { age: 24 * 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** The settlement worker's BullMQ settings: BullMQ looks up a custom backoff on the consumer side. */
export const settlementWorkerSettings: AdvancedOptions = { backoffStrategy: settlementRetryDelay };

/**
 * The consumer side: one job name, `settle-deposit`. `jobLockMs` is BullMQ's lock: a job whose
 * worker died is picked up again after about this long.
 */
export const settlementWorkerDefinition: QueueWorkerDefinition<
  SettlementJob,
  typeof SETTLEMENT_JOB_NAME,
  { concurrency: number; jobLockMs: number }
> = {
  name: QUEUE_NAMES.settlement,
  workerOptions: ({ concurrency, jobLockMs }) => ({
    concurrency,
    settings: settlementWorkerSettings,
    lockDuration: jobLockMs,
    stalledInterval: jobLockMs,
    // Running a settlement job again is always safe (it resumes), so a job is never failed for
    // having stalled, however often its worker died.
    maxStalledCount: 1_000,
  }),
};

export type SettlementQueue = Queue<SettlementJob>;

/** Producer side of the settlement queue. */
export function openSettlementQueue(redis: RedisSettings): SettlementQueue {
  return new Queue<SettlementJob>(QUEUE_NAMES.settlement, { connection: redisConnection(redis, 'producer'), prefix: redis.prefix });
}

/**
 * Adds one job per deposit, with the deposit's job id: a deposit that already has a job keeps it
 * and this add does nothing, so enqueueing is safe to repeat.
 */
export async function enqueueSettlements(queue: SettlementQueue, depositIds: readonly string[]): Promise<void> {
  if (depositIds.length === 0) return;
  await queue.addBulk(
    depositIds.map((depositId) => ({
      name: SETTLEMENT_JOB_NAME,
      data: { depositId },
      opts: { ...settlementJobOptions, jobId: settlementJobId(depositId) },
    })),
  );
}

/**
 * The earliest a delayed job can be due. BullMQ records the delay of the last move to `delayed`
 * (a retry's backoff, or the delay it was added with) but not when that move happened, which was
 * no earlier than the job's creation or its last start: so this is a lower bound of its due time.
 */
function dueNoEarlierThan(job: Job<SettlementJob>): number {
  return Math.max(job.timestamp, job.processedOn ?? 0) + job.delay;
}

/**
 * Makes sure a deposit that owes settlement has a job that will run in time: adds it when Redis
 * lost it, retries it when it failed, adds it again when it completed (a held deposit an operator
 * sweeps, a deposit re-planned after it needed attention, a forwarded one with a leg unpaid),
 * promotes it when it is delayed past the retry schedule. The reconciler, the dust sweep and replan
 * all queue a deposit with it.
 */
export async function ensureLiveSettlementJob(queue: SettlementQueue, depositId: string): Promise<'enqueued' | 'promoted' | 'live'> {
  const jobId = settlementJobId(depositId);
  const state = await queue.getJobState(jobId);
  switch (state) {
    case 'failed':
      await (await queue.getJob(jobId))?.retry('failed');
      return 'enqueued';
    case 'completed':
    case 'unknown':
      if (state === 'completed') await (await queue.getJob(jobId))?.remove();
      await enqueueSettlements(queue, [depositId]);
      return 'enqueued';
    case 'delayed': {
      const job = await queue.getJob(jobId);
      if (!job || dueNoEarlierThan(job) <= Date.now() + SETTLEMENT_RETRY_MAX_DELAY_MS) return 'live';
      // Refused only when the job left `delayed` meanwhile (it started, or another reconciler promoted it).
      return job.promote().then(
        () => 'promoted',
        () => 'live',
      );
    }
    default:
      return 'live';
  }
}
