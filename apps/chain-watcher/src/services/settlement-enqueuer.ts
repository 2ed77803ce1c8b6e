import { enqueueSettlements, openSettlementQueue, type RedisSettings, type SettlementQueue } from '@gateway/queue';

const ADD_BULK_CHUNK = 500;
// ioredis reports every failed reconnect; one report per period is enough for a log.
const ERROR_REPORT_INTERVAL_MS = 30_000;

/**
 * Tells the settlement worker about deposits that became final, after their transaction has
 * committed. The job id is the deposit id, so adding one twice is a no-op. Adding happens in the
 * background and never holds the watcher up: while Redis is away, BullMQ waits for it and the
 * ids stay pending here; if this process dies first, the settlement worker's own sweep of
 * PostgreSQL still finds the deposits.
 */
export class SettlementEnqueuer {
  private readonly queue: SettlementQueue;
  private readonly pending = new Set<string>();
  private flushing: Promise<void> | undefined;
  private lastErrorReport = 0;

  constructor(
    redis: RedisSettings,
    private readonly onError: (error: Error) => void,
  ) {
    this.queue = openSettlementQueue(redis);
    this.queue.on('error', (error) => this.report(error));
  }

  /** Deposit ids whose job Redis has not taken yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Adds settlement jobs for these deposits (and any still pending) without waiting for Redis. */
  enqueue(depositIds: readonly string[]): void {
    for (const id of depositIds) this.pending.add(id);
    if (this.flushing || this.pending.size === 0) return;
    this.flushing = this.flush()
      .catch((error: Error) => this.report(error))
      .finally(() => (this.flushing = undefined));
  }

  /** Closes the Redis connection; an add still waiting for Redis is abandoned (its ids stay in PostgreSQL as final). */
  async close(): Promise<void> {
    await this.queue.close();
  }

  private async flush(): Promise<void> {
    const ids = [...this.pending];
    for (let start = 0; start < ids.length; start += ADD_BULK_CHUNK) {
      const chunk = ids.slice(start, start + ADD_BULK_CHUNK);
      await enqueueSettlements(this.queue, chunk);
      for (const id of chunk) this.pending.delete(id);
    }
  }

  private report(error: Error): void {
    const now = Date.now();
    if (now - this.lastErrorReport < ERROR_REPORT_INTERVAL_MS) return;
    this.lastErrorReport = now;
    this.onError(error);
  }
}
