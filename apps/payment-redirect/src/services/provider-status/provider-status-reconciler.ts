import type { FastifyBaseLogger } from 'fastify';
import type { OverdueStatusPoll, ProviderStatusRepository } from '@gateway/db/payment-redirect';
import { enqueueMissingJobs, enqueueStatusPolls, haveStatusJobs, RepeatingPass, type ProviderStatusQueue } from '@gateway/queue';

export interface ProviderStatusReconcilerOptions {
  intervalMs: number;
  /** Overdue rows read and checked per round trip. */
  pageSize?: number;
}

/**
 * Redis can lose every status job (a FLUSHALL, a restart of a Redis that keeps nothing on disk);
 * the schedule is on the payments. Each pass gives a job to every payment whose look-up has been
 * due for over one interval (one due just now normally has its job) and has none, as the callback
 * worker's reconciler does for deliveries. Unlike deliveries, polled payments are few and bounded
 * (only those younger than the maximum age, and only until their status is final), so every pass
 * walks them all: there is no window to miss a row in. A job that fails (and is removed by BullMQ)
 * asks for a pass at once, so its payment is not left waiting for the next interval.
 */
export class ProviderStatusReconciler {
  private readonly passes: RepeatingPass;
  /** The next pass follows a failed job: it looks at look-ups due just now too. */
  private afterFailure = false;

  constructor(
    private readonly polls: Pick<ProviderStatusRepository, 'listOverdue'>,
    private readonly queue: ProviderStatusQueue,
    private readonly log: FastifyBaseLogger,
    private readonly options: ProviderStatusReconcilerOptions,
    private readonly onEnqueued: (count: number) => void = () => undefined,
  ) {
    this.passes = new RepeatingPass(
      () => {
        const grace = this.afterFailure ? 0 : options.intervalMs;
        this.afterFailure = false;
        return this.reconcileOnce(grace);
      },
      options.intervalMs,
      // The failed jobs' payments are still to be found: the next pass looks at them anyway.
      (error) => this.log.warn({ err: error }, 'status poll reconciler pass failed; retrying at the next interval'),
    );
  }

  start(): void {
    this.passes.start();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /** A job failed and was removed: its payment is recreated by a pass now rather than at the next interval. */
  jobFailed(): void {
    this.afterFailure = true;
    this.passes.runSoon();
  }

  /**
   * One pass; returns how many overdue payments were missing a job and got one. `graceMs`: how long
   * a look-up must have been due (0 after a job failed: its payment was due just now).
   */
  async reconcileOnce(graceMs = this.options.intervalMs): Promise<number> {
    const pageSize = this.options.pageSize ?? 500;
    const enqueued = await enqueueMissingJobs<OverdueStatusPoll>({
      pageSize,
      readPage: (after) => this.polls.listOverdue(graceMs, pageSize, after),
      haveJobs: (ids) => haveStatusJobs(this.queue, ids),
      enqueue: (ids) => enqueueStatusPolls(this.queue, ids),
      stopped: () => this.passes.isStopped,
    });
    if (enqueued > 0) {
      this.onEnqueued(enqueued);
      this.log.info({ enqueued }, 'status poll reconciler re-enqueued overdue look-ups that had no job');
    }
    return enqueued;
  }
}
