import { DelayedError, Worker, type Job, type WorkerOptions } from 'bullmq';
import { redisConnection, type RedisSettings } from './connection';

/**
 * What a job's handler answers: the job is done (it completes), or the same job (same id) runs
 * again at `againAt`, waiting in `delayed` meanwhile. Running again is not a failure: BullMQ's
 * attempts and back-off count failures only, which a handler reports by throwing.
 */
export type JobResult = 'done' | { againAt: Date };

export type JobHandler<Data> = (job: Job<Data>) => Promise<JobResult>;

/** A handler per job name the queue carries: a consumer cannot leave one out. */
export type JobHandlers<Data, Name extends string> = Record<Name, JobHandler<Data>>;

/** The worker settings a queue's consumer may take: BullMQ's, less where Redis is (the builder's). */
export type QueueWorkerOptions = Omit<WorkerOptions, 'connection' | 'prefix' | 'autorun'>;

/**
 * A queue as its consumers see it, defined once beside the queue's producer side: its name, the
 * jobs it carries and how a worker of it runs, from the few settings an app chooses.
 */
export interface QueueWorkerDefinition<Data, Name extends string, Settings> {
  name: string;
  /** Phantom: only its type is read (the payload and the job names). */
  readonly jobs?: { data: Data; name: Name };
  workerOptions(settings: Settings): QueueWorkerOptions;
}

export interface QueueWorkerSpec<Data, Name extends string, Settings> {
  redis: RedisSettings;
  settings: Settings;
  handlers: JobHandlers<Data, Name>;
}

/**
 * A BullMQ worker of `queue`, running now: each job goes to the handler of its name, and a handler
 * that answers "again at" has its job moved to `delayed` (the worker's lock token proves it holds
 * the job) and ended with DelayedError, which BullMQ takes as "not completed, not failed".
 */
export function startQueueWorker<Data, Name extends string, Settings>(
  queue: QueueWorkerDefinition<Data, Name, Settings>,
  { redis, settings, handlers }: QueueWorkerSpec<Data, Name, Settings>,
): Worker<Data, void> {
  const processJob = async (job: Job<Data>, token?: string): Promise<void> => {
    const handler = (handlers as Record<string, JobHandler<Data> | undefined>)[job.name];
    // Failed: BullMQ's retries, or the queue's reconciler, give the record a job it knows.
    if (handler === undefined) throw new Error(`no handler for ${queue.name} job ${JSON.stringify(job.name)}`);
    const result = await handler(job);
    if (result === 'done') return;
    await job.moveToDelayed(result.againAt.getTime(), token);
    throw new DelayedError();
  };
  return new Worker<Data, void>(queue.name, processJob, {
    ...queue.workerOptions(settings),
    connection: redisConnection(redis, 'worker'),
    prefix: redis.prefix,
  });
}

/** A queue's reconciler, as the consumer runs it: started after the worker, stopped before it. */
export interface ConsumerReconciler {
  start(): void;
  stop(): Promise<void>;
}

export interface QueueConsumerSpec<Data, Name extends string, Settings> extends QueueWorkerSpec<Data, Name, Settings> {
  /** Re-reads PostgreSQL and enqueues what is due and has no job. */
  reconciler: ConsumerReconciler;
  /** A job failed (its handler threw, or it has none): BullMQ's retries or the reconciler take it from there. */
  onFailed(job: Job<Data> | undefined, error: Error): void;
  /** The worker's own errors (Redis away, a lock lost); BullMQ keeps trying. */
  onError(error: Error): void;
}

/**
 * Every consumer of a gateway queue, one lifecycle: nothing runs until `start` (its app's plugin
 * calls it when the app listens), which starts the worker and then the reconciler; `close` stops
 * the reconciler, then lets the jobs running finish and closes the worker (the plugin calls it
 * before the app closes, so the jobs still have their pool).
 */
export class QueueConsumer<Data, Name extends string, Settings> {
  private worker: Worker<Data, void> | undefined;

  constructor(
    private readonly queue: QueueWorkerDefinition<Data, Name, Settings>,
    private readonly spec: QueueConsumerSpec<Data, Name, Settings>,
  ) {}

  start(): void {
    if (this.worker) return;
    this.worker = startQueueWorker(this.queue, this.spec);
    this.worker.on('failed', (job, error) => this.spec.onFailed(job, error));
    this.worker.on('error', (error) => this.spec.onError(error));
    this.spec.reconciler.start();
  }

  /** Runs in progress finish (or go back to `delayed`); no job starts after. */
  async close(): Promise<void> {
    await this.spec.reconciler.stop();
    await this.worker?.close();
  }
}
