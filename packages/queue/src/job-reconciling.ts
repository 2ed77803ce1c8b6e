/**
 * What the reconcilers share: Redis may lose any job (a flush, a restart of a Redis that keeps
 * nothing on disk) while PostgreSQL keeps what is due, so a reconciler walks the rows that should
 * have a job and gives one to each that has none, pass after pass.
 */

export interface MissingJobsWalk<Row extends { id: string }> {
  pageSize: number;
  /** The rows that should have a job, in key order, the page after `after` (the first page without it). */
  readPage(after: Row | undefined): Promise<Row[]>;
  /** For each id, whether its job exists. */
  haveJobs(ids: string[]): Promise<boolean[]>;
  enqueue(ids: string[]): Promise<unknown>;
  /** Read between pages: a reconciler that is stopping ends its walk there. */
  stopped(): boolean;
}

/** Walks the rows a page at a time, back to back; returns how many were missing a job and got one. */
export async function enqueueMissingJobs<Row extends { id: string }>(walk: MissingJobsWalk<Row>): Promise<number> {
  let enqueued = 0;
  let after: Row | undefined;
  for (;;) {
    const rows = await walk.readPage(after);
    if (rows.length === 0) break;
    const ids = rows.map((row) => row.id);
    const queued = await walk.haveJobs(ids);
    const missing = ids.filter((_, index) => !queued[index]);
    await walk.enqueue(missing);
    enqueued += missing.length;
    if (rows.length < walk.pageSize || walk.stopped()) break;
    after = rows[rows.length - 1];
  }
  return enqueued;
}

/**
 * Runs `pass` every `intervalMs` (counted from the end of the one before), never two at once. A
 * pass that fails is reported to `onError` and tried again at the next interval.
 */
export class RepeatingPass {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private started = false;
  private stopped = false;
  /** Asked for while a pass was running: another follows it at once. */
  private passAgain = false;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.started = true;
    this.stopped = false;
    this.schedule(0);
  }

  /** Resolves once the pass running (if any) has ended; no pass starts after. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Whether `stop` was called: a walk in progress ends early. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** A pass now rather than at the next interval, or right after the one running (once started). */
  runSoon(): void {
    if (!this.started || this.stopped) return;
    if (this.running) {
      this.passAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (!this.started || this.stopped) return;
    this.timer = setTimeout(() => {
      this.passAgain = false;
      this.running = this.pass()
        .catch(this.onError)
        .finally(() => {
          this.running = undefined;
          this.schedule(this.passAgain ? 0 : this.intervalMs);
        });
    }, delayMs);
  }
}
