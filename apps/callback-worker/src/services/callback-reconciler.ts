import type { FastifyBaseLogger } from 'fastify';
import type { CallbackDeliveryRepository, OverdueCallbackDelivery } from '@gateway/db/callback-worker';
import {
  enqueueDeliveries,
  enqueueMissingJobs,
  haveCallbackJobs,
  hasQueueMarker,
  RepeatingPass,
  setQueueMarker,
  type CallbackQueue,
} from '@gateway/queue';

export interface CallbackReconcilerOptions {
  intervalMs: number;
  /** Due rows read and checked per round trip. */
  pageSize?: number;
  /** A full pass over every overdue delivery happens at least this often. */
  fullPassEveryMs?: number;
}

// Lives among the queue's keys (setQueueMarker), so whatever wipes the jobs wipes it too.
const MARKER_KEY = 'gateway-reconciler-marker';

/**
 * Redis holds only work in flight and keeps nothing on disk here, so it can lose every job. The
 * reconciler gives a job to every pending delivery that is overdue (due for at least one interval:
 * a row that has just become due normally has its job) and has none. Jobs are looked up a page at a
 * time, back to back on one connection.
 *
 * Looking at the whole backlog on every pass would cost the most exactly when the worker is behind,
 * so most passes only look at rows that became overdue since the previous pass. The whole backlog
 * is walked on the first pass, at least every `fullPassEveryMs`, and as soon as a marker key the
 * reconciler keeps in Redis is gone: that is how a flush or a restart of Redis shows, and every job
 * may be gone with it.
 */
export class CallbackReconciler {
  private readonly passes: RepeatingPass;
  /** Upper end of the last window looked at; rows due up to here had a job then. */
  private watermark: string | undefined;
  private lastFullPassAt = 0;
  /** A job failed (and BullMQ removed it) since the last full pass: see jobFailed. */
  private jobsLost = false;

  constructor(
    private readonly deliveries: CallbackDeliveryRepository,
    private readonly queue: CallbackQueue,
    private readonly log: FastifyBaseLogger,
    private readonly options: CallbackReconcilerOptions,
    private readonly onEnqueued: (count: number) => void = () => undefined,
  ) {
    this.passes = new RepeatingPass(
      () => this.reconcileOnce(),
      options.intervalMs,
      (error) => this.log.warn({ err: error }, 'reconciler pass failed; retrying at the next interval'),
    );
  }

  start(): void {
    this.passes.start();
  }

  stop(): Promise<void> {
    return this.passes.stop();
  }

  /**
   * A job failed and was removed (callback jobs keep no BullMQ retries). Its delivery may have been
   * due long before the watermark, where the next windows never look, so the next pass walks the
   * whole backlog: after a PostgreSQL outage failed a batch, its callbacks go out at the next pass,
   * not at the next scheduled full pass a minute later.
   */
  jobFailed(): void {
    this.jobsLost = true;
  }

  /** One pass; returns how many overdue deliveries were missing a job and got one. */
  async reconcileOnce(): Promise<number> {
    const full =
      this.watermark === undefined ||
      this.jobsLost ||
      Date.now() - this.lastFullPassAt >= (this.options.fullPassEveryMs ?? 60_000) ||
      !(await hasQueueMarker(this.queue, MARKER_KEY));
    // Cleared before the walk, so a job failing during it asks for the pass after this one; set
    // again when the pass fails (PostgreSQL still away): the lost jobs are still to be found.
    const lostBefore = this.jobsLost;
    if (full) this.jobsLost = false;
    let until: string;
    let enqueued: number;
    try {
      // Read before walking, so a row that becomes overdue during the walk falls in the next window.
      until = await this.deliveries.overdueCutoff(this.options.intervalMs);
      enqueued = await this.walk({ since: full ? undefined : this.watermark, until });
    } catch (error) {
      this.jobsLost ||= lostBefore;
      throw error;
    }
    if (full) {
      await setQueueMarker(this.queue, MARKER_KEY);
      this.lastFullPassAt = Date.now();
    }
    this.watermark = until;
    if (enqueued > 0) {
      this.onEnqueued(enqueued);
      this.log.info({ enqueued, fullPass: full }, 'reconciler re-enqueued overdue deliveries that had no job');
    }
    return enqueued;
  }

  private walk(window: { since?: string; until: string }): Promise<number> {
    const pageSize = this.options.pageSize ?? 500;
    return enqueueMissingJobs<OverdueCallbackDelivery>({
      pageSize,
      readPage: (after) => this.deliveries.listOverdue(pageSize, window, after),
      haveJobs: (ids) => haveCallbackJobs(this.queue, ids),
      enqueue: (ids) => enqueueDeliveries(this.queue, ids),
      stopped: () => this.passes.isStopped,
    });
  }
}
