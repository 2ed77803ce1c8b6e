import type { FastifyBaseLogger } from 'fastify';
import type { OverdueStatusPoll, ProviderStatusPollRepository } from '@gateway/db/payment-redirect';
import { enqueueStatusPolls, haveStatusJobs, type ProviderStatusQueue } from '@gateway/queue';

export interface StatusPollReconcilerOptions {
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
export class StatusPollReconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = true;
  /** A job failed while a pass was running: another pass follows it at once. */
  private passAgain = false;
  /** The next pass follows a failed job: it looks at look-ups due just now too. */
  private afterFailure = false;

  constructor(
    private readonly polls: ProviderStatusPollRepository,
    private readonly queue: ProviderStatusQueue,
    private readonly log: FastifyBaseLogger,
    private readonly options: StatusPollReconcilerOptions,
    private readonly onEnqueued: (count: number) => void = () => undefined,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** A job failed and was removed: its payment is recreated by a pass now rather than at the next interval. */
  jobFailed(): void {
    if (this.stopped) return;
    if (this.running) {
      this.passAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.afterFailure = true;
    this.schedule(0);
  }

  /**
   * One pass; returns how many overdue payments were missing a job and got one. `graceMs`: how long
   * a look-up must have been due (0 after a job failed: its payment was due just now).
   */
  async reconcileOnce(graceMs = this.options.intervalMs): Promise<number> {
    const pageSize = this.options.pageSize ?? 500;
    let enqueued = 0;
    let after: OverdueStatusPoll | undefined;
    for (;;) {
      const overdue = await this.polls.listOverdue(graceMs, pageSize, after);
      if (overdue.length === 0) break;
      const ids = overdue.map((poll) => poll.id);
      const queued = await haveStatusJobs(this.queue, ids);
      const missing = ids.filter((_, index) => !queued[index]);
      await enqueueStatusPolls(this.queue, missing);
      enqueued += missing.length;
      if (overdue.length < pageSize || this.stopped) break;
      after = overdue[overdue.length - 1];
    }
    if (enqueued > 0) {
      this.onEnqueued(enqueued);
      this.log.info({ enqueued }, 'status poll reconciler re-enqueued overdue look-ups that had no job');
    }
    return enqueued;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const grace = this.afterFailure ? 0 : this.options.intervalMs;
      this.passAgain = false;
      this.afterFailure = false;
      this.running = this.reconcileOnce(grace);
      this.running
        .catch((error: unknown) => {
          // The failed jobs' payments are still to be found: the next pass is a full one anyway.
          this.log.warn({ err: error }, 'status poll reconciler pass failed; retrying at the next interval');
        })
        .finally(() => {
          this.running = undefined;
          this.afterFailure = this.passAgain;
          this.schedule(this.passAgain ? 0 : this.options.intervalMs);
        });
    }, delayMs);
  }
}
